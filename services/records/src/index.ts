import { busLocationFromEnv, openBusWhenReachable, type Consumer, type MessageBus } from '@crm/bus';
import { GrpcServer, healthListenAddress, internalTlsFor, privacyV1, recordsV1, listenAddress, storeReadiness } from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import { locationFromEnv, openStoreWhenReachable, RetentionSweeper, type DocumentStore, type StoreLocation } from '@crm/store';
import { ChangeFeed } from './application/change-feed';
import { PersonData } from './application/person-data';
import { createRecordsResources, type RecordsResources } from './application/records-resources';
import type { RecordsConfig } from './config';
import { FEED_INTAKE_QUEUE, FeedIntake } from './messaging/feed-intake';
import { OutboxRelay } from './messaging/outbox-relay';
import { recordsCallers } from './grpc/records-callers';
import { recordsPrivacyCallers } from './grpc/privacy-callers';
import { recordsPrivacyHandlers } from './grpc/privacy-handlers';
import { recordsHandlers } from './grpc/records-handlers';
import { AuthUserDirectory, type UserDirectory } from './adapters/user-directory';
import { recordsCollections } from './store/collections';
import { observeReadQueue } from './store/read-queue-metrics';
import { ChangeFeedRepository } from './store/change-feed-repository';
import { RecordsRepository } from './store/records-repository';
import { recordsRetentionRules } from './store/retention-rules';

export * from './config';

export interface StartRecordsOptions {
  logger?: Logger;
  /** Overrides where the store lives (tests: `{ kind: 'sqlite', file: ':memory:' }`). */
  storeLocation?: StoreLocation;
  /** Overrides the bus (tests pass an in-process bus they also consume from). */
  bus?: MessageBus;
  /** Overrides the user directory (tests run without auth). */
  users?: UserDirectory;
  /** How often the outbox relay sweeps for unpublished events. */
  outboxSweepMs?: number;
}

export interface RunningRecordsService {
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves RecordsService over gRPC once its store and bus are open, and starts the outbox relay. The
 * port (and health port) open first and answer NOT_SERVING while the store and the bus are waited
 * for (openStoreWhenReachable, openBusWhenReachable), so a replica started before its MongoDB or
 * RabbitMQ stays up, says it is not ready, and comes ready by itself.
 */
export async function startRecordsService(config: RecordsConfig, options: StartRecordsOptions = {}): Promise<RunningRecordsService> {
  const logger = options.logger ?? createLogger('records', { level: config.LOG_LEVEL });
  const tls = internalTlsFor(config, 'records', logger);
  const location = options.storeLocation ?? storeLocationOf(config);
  const server = new GrpcServer({ logger, tls, maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS });
  const port = await server.listen(listenAddress(config.GRPC_HOST, config.GRPC_PORT), { healthAddress: healthListenAddress(config) });
  let opened: Dependencies;
  try {
    opened = await openDependencies(config, options, location, logger);
  } catch (error) {
    await server.shutdown(0);
    throw error;
  }
  const { store, relay } = opened;
  const users = options.users ?? new AuthUserDirectory(config.AUTH_GRPC_ADDR, tls, logger);
  const records = createRecordsResources({
    repository: new RecordsRepository(store),
    users,
    relay,
    privacyHashKey: config.PRIVACY_HASH_KEY,
    // SQLite answers synchronously: a second bulk call at once would only queue behind the first.
    // On MongoDB a batch waits on the network, so a few overlap (not measured here: no MongoDB server).
    bulkCallsAtOnce: location.kind === 'sqlite' ? 1 : 4,
    logger,
  });
  const retention = new RetentionSweeper(
    store,
    recordsRetentionRules(config.BATCH_RESULT_RETENTION_DAYS, config.AUDIT_RETENTION_DAYS),
    logger,
    { intervalMs: config.RETENTION_SWEEP_MS, batchSize: config.RETENTION_BATCH_SIZE },
  );
  const feed = new ChangeFeed(new ChangeFeedRepository(store));
  server.addService(recordsV1.protoPath, recordsV1.RecordsServiceName, recordsHandlers(records, feed), recordsCallers);
  const person = new PersonData(records.context, records.auditLog);
  server.addService(privacyV1.protoPath, privacyV1.RecordsPrivacyServiceName, recordsPrivacyHandlers(person), recordsPrivacyCallers);
  // Not the broker: the outbox keeps writes' events until it is back, so records serves without it.
  await server.serveWhileReady([storeReadiness(store)]);
  retention.start();
  checkCustomFieldsInBackground(records, logger);
  moveAuditLeftoversInBackground(records, logger);
  return {
    port,
    async stop() {
      // gRPC first (no new writes), then the relay publishes what those writes left pending.
      await server.shutdown();
      await retention.stop();
      await records.context.auditStaging.stop();
      users.close();
      await opened.close();
    },
  };
}

function storeLocationOf(config: RecordsConfig): StoreLocation {
  return locationFromEnv({
    service: 'records',
    mongoUrl: config.MONGO_URL,
    mongoDatabase: config.MONGO_DATABASE,
    dataDir: config.CRM_DATA_DIR,
    sqliteReadWorkers: config.SQLITE_READ_WORKERS,
  });
}

/** The store, the bus, the outbox relay and the change feed's intake, open; `close` closes what opened, last first. */
interface Dependencies {
  store: DocumentStore;
  relay: OutboxRelay;
  close(): Promise<void>;
}

/** Waits for the store and the bus (a replica started before them stays up, not ready); on a failure closes what it opened. */
async function openDependencies(
  config: RecordsConfig,
  options: StartRecordsOptions,
  location: StoreLocation,
  logger: Logger,
): Promise<Dependencies> {
  let store: DocumentStore | undefined;
  let bus: MessageBus | undefined;
  let relay: OutboxRelay | undefined;
  let intakeConsumer: Consumer | undefined;
  const close = async () => {
    await intakeConsumer?.stop();
    await relay?.stop();
    if (!options.bus) await bus?.close();
    await store?.close();
  };
  try {
    store = await openStoreWhenReachable({ location, collections: recordsCollections }, logger);
    observeReadQueue(store);
    bus = options.bus ?? (await openBusWhenReachable(busLocationFromEnv(config.AMQP_URL), logger));
    relay = new OutboxRelay(store, bus, logger, { sweepIntervalMs: options.outboxSweepMs });
    await relay.start();
    const intake = new FeedIntake(store, relay);
    intakeConsumer = await bus.consume(FEED_INTAKE_QUEUE, (message) => intake.handle(message));
    return { store, relay, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Moves into the audit log the entries a stopped replica left staged (store/audit-staging.ts); a read or write in their workspace would too. */
function moveAuditLeftoversInBackground(records: RecordsResources, logger: Logger): void {
  records.context.auditStaging
    .moveLeftovers()
    .then((moved) => moved > 0 && logger.info({ moved }, 'moved the audit entries a stopped replica left staged into the log'))
    .catch((err: unknown) =>
      logger.warn({ err }, 'could not move the audit entries left staged; a read of the log in their workspace moves them'),
    );
}

/** Checks the custom field indexes and finishes deletions a stopped replica left: a start never waits on it, and a repeat finds nothing to do. */
function checkCustomFieldsInBackground(records: RecordsResources, logger: Logger): void {
  records.customFieldDefinitions
    .atStart()
    .then(({ checked, resumed }) => {
      logger.debug({ checked }, 'custom field indexes checked');
      if (resumed > 0) logger.info({ resumed }, 'finished custom field deletions a stopped replica left under way');
    })
    .catch((err: unknown) =>
      logger.warn({ err }, 'could not check the custom field indexes or finish the deletions left under way; the next start tries again'),
    );
}
