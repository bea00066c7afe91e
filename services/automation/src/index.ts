/**
 * The automation service's two roles, one image:
 * - server (`startAutomationService`): the gRPC API for rules, logs, templates, emails,
 *   notifications and webhook subscriptions (it publishes test events and redeliveries);
 * - worker (`startAutomationWorker`): consumes records events (enrollment, exits on change, webhook
 *   fan-out), step messages (execution) and webhook delivery attempts, runs the sweeper for overdue steps and the retention sweeper (one worker at a time
 *   each, by lease), and serves
 *   gRPC health on GRPC_PORT for Kubernetes probes.
 * One-process mode (scripts/start.js) starts both, handing them the same in-process bus as records.
 */
import { busLocationFromEnv, openBusWhenReachable, type Consumer, type MessageBus } from '@crm/bus';
import {
  brokerReadiness,
  GrpcServer,
  automationV1,
  healthListenAddress,
  internalTlsFor,
  listenAddress,
  privacyV1,
  storeReadiness,
  type InternalTls,
} from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import { systemClock } from '@crm/vocabulary';
import { locationFromEnv, openStoreWhenReachable, RetentionSweeper, type DocumentStore, type StoreLocation } from '@crm/store';
import { OutboxService } from './application/outbox-service';
import { RuleService } from './application/rule-service';
import { TemplateService } from './application/template-service';
import { PersonData } from './application/person-data';
import { WebhookService } from './application/webhook-service';
import { GrpcRecordsGateway, type RecordsGateway } from './adapters/records-gateway';
import { AuthWorkspaceDirectory, type WorkspaceDirectory } from './adapters/workspace-directory';
import type { AutomationConfig } from './config';
import { aiWriterFor, type AiWriter } from './adapters/ai-writer';
import { emailTransportFor, type EmailTransport } from './adapters/email-transport';
import { Enroller } from './application/engine/enroller';
import { ExitWatcher } from './application/engine/exit-watcher';
import { MergeFollower } from './application/engine/merge-follower';
import { EVENTS_QUEUE, STEPS_QUEUE } from './application/engine/messages';
import { RunEvents } from './application/engine/run-events';
import { StepActions } from './application/engine/step-actions';
import { StepDispatcher } from './application/engine/step-dispatcher';
import { StepRunner } from './application/engine/step-runner';
import { Sweeper } from './application/engine/sweeper';
import { WebhookFanout } from './application/engine/webhook-fanout';
import { WEBHOOK_DELIVERIES_QUEUE, WEBHOOK_EVENTS_QUEUE } from './application/engine/webhook-messages';
import { WEBHOOK_RETRY_GRACE_MS, WebhookRetryRecovery } from './application/engine/webhook-retry-recovery';
import { SUBSCRIPTION_IN_FLIGHT, WebhookSender } from './application/engine/webhook-sender';
import { webhookTransport, type WebhookTransport } from './adapters/webhook-transport';
import { automationCallers } from './grpc/automation-callers';
import { automationHandlers } from './grpc/automation-handlers';
import { automationPrivacyCallers } from './grpc/privacy-callers';
import { automationPrivacyHandlers } from './grpc/privacy-handlers';
import { automationCollections } from './store/collections';
import { createRepositories } from './store/repositories';
import { automationRetentionRules } from './store/retention-rules';

export * from './config';

export interface RunningAutomationService {
  port: number;
  stop(): Promise<void>;
}

export interface StartAutomationOptions {
  logger?: Logger;
  /** Overrides where the store lives (tests: `{ kind: 'sqlite', file: ':memory:' }`). */
  storeLocation?: StoreLocation;
  /** An already open store (tests share one between server and worker). */
  store?: DocumentStore;
  /** Overrides the bus (one-process mode and tests pass the in-process bus records publishes to). */
  bus?: MessageBus;
}

export interface StartAutomationWorkerOptions extends StartAutomationOptions {
  records?: RecordsGateway;
  directory?: WorkspaceDirectory;
  transport?: EmailTransport;
  ai?: AiWriter;
  webhookTransport?: WebhookTransport;
}

async function storeFor(
  config: AutomationConfig,
  options: StartAutomationOptions,
  logger: Logger,
): Promise<{ store: DocumentStore; owned: boolean }> {
  if (options.store) return { store: options.store, owned: false };
  const location =
    options.storeLocation ??
    locationFromEnv({
      service: 'automation',
      mongoUrl: config.MONGO_URL,
      mongoDatabase: config.MONGO_DATABASE,
      dataDir: config.CRM_DATA_DIR,
    });
  return { store: await openStoreWhenReachable({ location, collections: automationCollections }, logger), owned: true };
}

/** The gRPC server role. */
export async function startAutomationService(
  config: AutomationConfig,
  options: StartAutomationOptions = {},
): Promise<RunningAutomationService> {
  const logger = options.logger ?? createLogger('automation', { level: config.LOG_LEVEL });
  const tls = internalTlsFor(config, 'automation', logger);
  // The ports open first, NOT_SERVING, so a replica whose MongoDB or RabbitMQ does not answer yet waits, saying so.
  const server = new GrpcServer({ logger, tls, maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS });
  const port = await server.listen(listenAddress(config.GRPC_HOST, config.GRPC_PORT), { healthAddress: healthListenAddress(config) });
  const { store, owned } = await storeFor(config, options, logger).catch(async (error: unknown) => {
    await server.shutdown(0);
    throw error;
  });
  // The users a rule's assign_user steps name are checked with auth when the rule is saved.
  const members = new AuthWorkspaceDirectory(config.AUTH_GRPC_ADDR, tls);
  const clock = systemClock;
  const repositories = createRepositories(store);
  const rules = new RuleService(repositories, clock, members);
  const templates = new TemplateService(repositories.templates, rules, clock);
  const outbox = new OutboxService(repositories);
  let bus: MessageBus | undefined;
  try {
    // Test events and redeliveries go out as delivery messages for the workers.
    bus = options.bus ?? (await openBusWhenReachable(busLocationFromEnv(config.AMQP_URL), logger));
    const webhooks = new WebhookService(repositories, { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, bus, clock });
    server.addService(
      automationV1.protoPath,
      automationV1.AutomationServiceName,
      automationHandlers({ rules, templates, outbox, webhooks }),
      automationCallers,
    );
    const person = new PersonData(repositories.personData);
    server.addService(
      privacyV1.protoPath,
      privacyV1.AutomationPrivacyServiceName,
      automationPrivacyHandlers(person),
      automationPrivacyCallers,
    );
  } catch (error) {
    await server.shutdown(0);
    members.close();
    if (bus && !options.bus) await bus.close().catch(() => undefined);
    if (owned) await store.close();
    throw error;
  }
  await server.serveWhileReady([storeReadiness(store)]);
  return {
    port,
    async stop() {
      await server.shutdown();
      members.close();
      if (!options.bus) await bus.close();
      if (owned) await store.close();
    },
  };
}

/** The worker role: enrollment and step consumers, the sweeper, and gRPC health. */
export async function startAutomationWorker(
  config: AutomationConfig,
  options: StartAutomationWorkerOptions = {},
): Promise<RunningAutomationService> {
  const logger = options.logger ?? createLogger('automation-worker', { level: config.LOG_LEVEL });
  const tls = internalTlsFor(config, 'automation-worker', logger);
  // Health first, NOT_SERVING, so a worker whose MongoDB or RabbitMQ does not answer yet waits, saying so.
  const health = new GrpcServer({ logger, tls, maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS });
  const port = await health.listen(listenAddress(config.GRPC_HOST, config.GRPC_PORT), { healthAddress: healthListenAddress(config) });
  const { store, owned } = await storeFor(config, options, logger).catch(async (error: unknown) => {
    await health.shutdown(0);
    throw error;
  });
  const opened: Array<() => Promise<void> | void> = [() => health.shutdown(2_000)];
  try {
    const ports = await openWorkerPorts(config, options, tls, logger, opened);
    const { bus, transport, ai } = ports;
    const { sweeper, consume } = workerEngine(config, options, store, ports, logger);
    const consumers = await consume();
    const retention = new RetentionSweeper(store, automationRetentionRules(config), logger, {
      intervalMs: config.RETENTION_SWEEP_MS,
      batchSize: config.RETENTION_BATCH_SIZE,
    });
    sweeper.start();
    retention.start();
    await health.serveWhileReady([storeReadiness(store), brokerReadiness(bus)]);
    logger.info(
      { port, emailTransport: transport.kind, aiProvider: ai.missing ? 'none' : 'configured', waitScale: config.CRM_WAIT_TIME_SCALE },
      'automation worker consuming',
    );
    return {
      port,
      async stop() {
        health.setServing(false);
        // Consumers first: handlers under way finish (and ack) before the store closes.
        await Promise.all(consumers.map((consumer) => consumer.stop()));
        await sweeper.stop();
        await retention.stop();
        for (const close of opened.reverse()) await close();
        if (owned) await store.close();
      },
    };
  } catch (error) {
    for (const close of opened.reverse()) await Promise.resolve(close()).catch(() => undefined);
    if (owned) await store.close();
    throw error;
  }
}

/** What the worker reaches outside itself; each one it opened is pushed onto `opened` (closed last first). */
interface WorkerPorts {
  bus: MessageBus;
  records: RecordsGateway;
  directory: WorkspaceDirectory;
  transport: EmailTransport;
  ai: AiWriter;
}

async function openWorkerPorts(
  config: AutomationConfig,
  options: StartAutomationWorkerOptions,
  tls: InternalTls | null,
  logger: Logger,
  opened: Array<() => Promise<void> | void>,
): Promise<WorkerPorts> {
  const bus = options.bus ?? (await openBusWhenReachable(busLocationFromEnv(config.AMQP_URL), logger));
  if (!options.bus) opened.push(() => bus.close());
  const records = options.records ?? new GrpcRecordsGateway(config.RECORDS_GRPC_ADDR, tls);
  if (!options.records) opened.push(() => records.close());
  const directory = options.directory ?? new AuthWorkspaceDirectory(config.AUTH_GRPC_ADDR, tls);
  if (!options.directory) opened.push(() => directory.close());
  const transport = options.transport ?? emailTransportFor(config.SMTP_URL, config.EMAIL_FROM, logger, config.SMTP_TIMEOUT_MS);
  if (!options.transport) opened.push(() => transport.close());
  const ai = options.ai ?? aiWriterFor(config.AI_PROVIDER_URL, config.AI_MODEL, config.AI_API_KEY, config.AI_TIMEOUT_MS);
  return { bus, records, directory, transport, ai };
}

/** The engine: enrollment, steps, exits, merges, webhook fan-out and sending, and the sweeper; `consume` starts its queues' consumers. */
function workerEngine(
  config: AutomationConfig,
  options: StartAutomationWorkerOptions,
  store: DocumentStore,
  { bus, records, directory, transport, ai }: WorkerPorts,
  logger: Logger,
): { sweeper: Sweeper; consume(): Promise<Consumer[]> } {
  // One clock for the whole engine (tests give their own to the same classes).
  const clock = systemClock;
  const repositories = createRepositories(store);
  const dispatcher = new StepDispatcher(bus, clock);
  const runEvents = new RunEvents(bus, repositories.runs, clock);
  const enroller = new Enroller(repositories, dispatcher, logger, config.CRM_WAIT_TIME_SCALE, clock);
  const actions = new StepActions({ repositories, records, directory, transport, ai, logger });
  const runner = new StepRunner(
    repositories.runs,
    records,
    actions,
    dispatcher,
    logger,
    { waitScale: config.CRM_WAIT_TIME_SCALE, claimLeaseMs: config.STEP_CLAIM_MS, runEvents },
    clock,
  );
  const webhookRetries = new WebhookRetryRecovery(repositories, bus, WEBHOOK_RETRY_GRACE_MS, clock);
  const sweeper = new Sweeper(
    repositories,
    dispatcher,
    logger,
    { intervalMs: config.SWEEP_INTERVAL_MS, graceMs: config.SWEEP_GRACE_MS, runEvents, webhookRetries },
    clock,
  );
  const exits = new ExitWatcher(repositories.runs, records, logger, clock);
  const merges = new MergeFollower(repositories.runs, logger, clock);
  const fanout = new WebhookFanout(repositories.webhooks, bus, clock);
  const sender = new WebhookSender(
    repositories,
    bus,
    options.webhookTransport ??
      webhookTransport({
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: config.WEBHOOK_RESPONSE_MAX_BYTES,
      }),
    { firstDelayMs: config.WEBHOOK_RETRY_FIRST_MS, maxDelayMs: config.WEBHOOK_RETRY_MAX_MS, horizonMs: config.WEBHOOK_RETRY_HORIZON_MS },
    logger,
    SUBSCRIPTION_IN_FLIGHT,
    clock,
  );
  const consume = async (): Promise<Consumer[]> => [
    await bus.consume(EVENTS_QUEUE, async (message) => {
      await enroller.handle(message);
      await exits.handle(message);
      await merges.handle(message);
    }),
    await bus.consume(STEPS_QUEUE, (message) => runner.handle(message)),
    await bus.consume(WEBHOOK_EVENTS_QUEUE, (message) => fanout.handle(message)),
    await bus.consume(WEBHOOK_DELIVERIES_QUEUE, (message) => sender.handle(message)),
  ];
  return { sweeper, consume };
}
