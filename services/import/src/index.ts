/**
 * The import service's two roles, started from one image:
 * - server (`startImportService`): gRPC job reads, the upload HTTP endpoint, the sweeper and retention;
 * - worker (`startImportWorker`): consumes split and chunk messages; serves gRPC health only.
 * With the in-process bus (no AMQP_URL) nothing outside this process could consume what the server
 * publishes, so the server also runs the worker role in-process (the one-process `npm start`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { busLocationFromEnv, openBusWhenReachable, type Consumer, type MessageBus } from '@crm/bus';
import {
  brokerReadiness,
  GrpcClient,
  GrpcServer,
  healthListenAddress,
  importV1,
  privacyV1,
  internalTlsFor,
  recordsV1,
  listenAddress,
  storeReadiness,
  type InternalTls,
} from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import { locationFromEnv, openStoreWhenReachable, StoreLease, type DocumentStore, type StoreLocation } from '@crm/store';
import { ImportEvents } from './application/import-events';
import { ChunkImporter } from './application/chunk-importer';
import { contactFileReaders, FILE_READ_LIMITS, type ContactFileReaders } from './application/contact-file-readers';
import { chunkQueue, splitQueue, type ReceivedChunkPayload, type SplitPayload } from './application/import-messages';
import { JobSplitter } from './application/job-splitter';
import { ImportRetention } from './application/import-retention';
import { exportQueue, type ExportPayload } from './application/export-messages';
import { ExportRequests } from './application/export-requests';
import { ExportRetention } from './application/export-retention';
import { ExportRunner } from './application/export-runner';
import { exportHandlers } from './grpc/export-handlers';
import { ExportJobRepository } from './store/export-job-repository';
import { JobSweeper } from './application/job-sweeper';
import type { RecordsClient, RecordsReader } from './application/ports';
import type { ImportConfig } from './config';
import { PersonRows } from './application/person-rows';
import { importCallers } from './grpc/import-callers';
import { importPrivacyCallers } from './grpc/privacy-callers';
import { importPrivacyHandlers } from './grpc/privacy-handlers';
import { importHandlers } from './grpc/import-handlers';
import { importCollections } from './store/collections';
import type { FileStorage } from './store/file-storage';
import { ImportJobRepository } from './store/import-job-repository';
import { PersonRowsRepository } from './store/person-rows-repository';
import type { GridFsFileStorage } from './store/gridfs-file-storage';
import { LocalFileStorage } from './store/local-file-storage';
import { ReaderThreads } from './adapters/reading/reader-threads';
import { createUploadServer } from './http/upload-server';
import { systemClock } from '@crm/vocabulary';

export * from './config';

/** Loaded only on MongoDB, so the embedded default never pays for the driver. */
function gridFs(): typeof GridFsFileStorage {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./store/gridfs-file-storage') as { GridFsFileStorage: typeof GridFsFileStorage }).GridFsFileStorage;
}

export interface StartImportOptions {
  logger?: Logger;
  /** Tests: `{ kind: 'sqlite', file: ':memory:' }`. */
  storeLocation?: StoreLocation;
  /** Tests share one in-process bus between roles. */
  bus?: MessageBus;
  records?: RecordsClient & Partial<RecordsReader>;
  files?: FileStorage;
  /** Server role: also run the worker role in this process. Default: when the bus is in-process. */
  withWorker?: boolean;
}

export interface RunningImportService {
  /** gRPC port. */
  port: number;
  /** Upload HTTP port (server role). */
  uploadPort?: number;
  stop(): Promise<void>;
}

interface Runtime {
  store: DocumentStore;
  files: FileStorage;
  bus: MessageBus;
  records: RecordsClient;
  repo: ImportJobRepository;
  exports: ExportJobRepository;
  /** What export runs read records with; none when a test gives a records double without streams. */
  reader: RecordsReader | undefined;
  importer: ChunkImporter;
  close(): Promise<void>;
}

async function openRuntime(config: ImportConfig, logger: Logger, options: StartImportOptions, tls: InternalTls | null): Promise<Runtime> {
  const location =
    options.storeLocation ??
    locationFromEnv({ service: 'import', mongoUrl: config.MONGO_URL, mongoDatabase: config.MONGO_DATABASE, dataDir: config.CRM_DATA_DIR });
  const store = await openStoreWhenReachable({ location, collections: importCollections }, logger);
  const files =
    options.files ??
    (location.kind === 'mongo' ? await gridFs().open(location.url, location.database) : new LocalFileStorage(config.CRM_DATA_DIR));
  const bus = options.bus ?? (await openBusWhenReachable(busLocationFromEnv(config.AMQP_URL), logger));
  const ownedRecords = options.records
    ? undefined
    : new GrpcClient<recordsV1.RecordsServiceMethods>(recordsV1.protoPath, recordsV1.RecordsServiceName, config.RECORDS_GRPC_ADDR, tls);
  const records: RecordsClient = options.records ?? ownedRecords!;
  const repo = new ImportJobRepository(store);
  const clock = systemClock;
  const importer = new ChunkImporter({ repo, files, records, logger, events: new ImportEvents(bus, clock), clock });
  const given = options.records;
  const reader: RecordsReader | undefined = ownedRecords ?? (given?.stream ? (given as RecordsReader) : undefined);
  return {
    store,
    files,
    bus,
    records,
    repo,
    exports: new ExportJobRepository(store),
    reader,
    importer,
    async close() {
      if (!options.bus) await bus.close();
      ownedRecords?.close();
      if (!options.files) await files.close();
      await store.close();
    },
  };
}

/** The worker role's consumers on an open runtime. */
async function startConsumers(config: ImportConfig, runtime: Runtime, logger: Logger): Promise<Consumer[]> {
  const splitter = new JobSplitter({
    repo: runtime.repo,
    files: runtime.files,
    bus: runtime.bus,
    importer: runtime.importer,
    records: runtime.records,
    logger,
    chunkRows: config.CHUNK_ROWS,
  });
  const chunks = await runtime.bus.consume(chunkQueue(config.WORKER_PREFETCH, config.CHUNK_RETRY_BUDGET_MS), (message, info) =>
    runtime.importer.handle(message.payload as ReceivedChunkPayload, info),
  );
  const splits = await runtime.bus.consume(splitQueue, async (message) => {
    const { workspaceId, jobUid } = message.payload as SplitPayload;
    await splitter.split(workspaceId, jobUid);
  });
  const consumers = [splits, chunks];
  if (runtime.reader) {
    const runner = new ExportRunner({
      repo: runtime.exports,
      records: runtime.reader,
      logger,
      chunkBytes: config.EXPORT_CHUNK_KIB * 1024,
      batchSize: config.EXPORT_BATCH_ROWS,
    });
    consumers.push(await runtime.bus.consume(exportQueue, (message) => runner.handle(message.payload as ExportPayload)));
  }
  return consumers;
}

export async function startImportService(config: ImportConfig, options: StartImportOptions = {}): Promise<RunningImportService> {
  const logger = options.logger ?? createLogger('import', { level: config.LOG_LEVEL });
  const tls = internalTlsFor(config, 'import', logger);
  // The gRPC ports open first, NOT_SERVING, so a replica whose MongoDB or RabbitMQ does not answer yet waits, saying so.
  const server = new GrpcServer({ logger, tls, maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS });
  const port = await server.listen(listenAddress(config.GRPC_HOST, config.GRPC_PORT), { healthAddress: healthListenAddress(config) });
  const runtime = await openRuntime(config, logger, options, tls).catch(async (error: unknown) => {
    await server.shutdown(0);
    throw error;
  });
  const withWorker = options.withWorker ?? !config.AMQP_URL;
  const consumers = withWorker ? await startConsumers(config, runtime, logger) : [];
  const sweeps = backgroundSweeps(config, runtime, logger);
  addImportServices(server, runtime, contactFileReaders(readerThreads(config), config.READER_TIMEOUT_MS), logger);
  const upload: Server = createUploadServer({
    repo: runtime.repo,
    files: runtime.files,
    bus: runtime.bus,
    records: runtime.records,
    logger,
    secret: config.UPLOAD_SECRET,
    tls,
    stallMs: config.IMPORT_STALL_MS,
  });
  let uploadPort: number;
  try {
    uploadPort = await listenForUploads(upload, config);
  } catch (error) {
    await server.shutdown(0);
    await Promise.all(consumers.map((c) => c.stop()));
    await runtime.close();
    throw error;
  }
  sweeps.start();
  // Not the broker: an upload's split message that cannot go out is re-published by the sweeper.
  await server.serveWhileReady([storeReadiness(runtime.store)]);
  logger.info({ uploadPort, inProcessWorker: withWorker }, 'import upload endpoint listening');
  return {
    port,
    uploadPort,
    async stop() {
      await new Promise<void>((resolve) => upload.close(() => resolve()));
      await server.shutdown();
      await sweeps.stop();
      await Promise.all(consumers.map((c) => c.stop()));
      await runtime.close();
    },
  };
}

/** The stalled-job sweeper and the imports' and exports' retention, started and stopped together. */
function backgroundSweeps(config: ImportConfig, runtime: Runtime, logger: Logger): { start(): void; stop(): Promise<void> } {
  const sweeper = new JobSweeper({
    repo: runtime.repo,
    bus: runtime.bus,
    importer: runtime.importer,
    logger,
    stallMs: config.IMPORT_STALL_MS,
    intervalMs: config.IMPORT_SWEEP_MS,
  });
  const retention = new ImportRetention({
    repo: runtime.repo,
    files: runtime.files,
    lease: new StoreLease(runtime.store, 'import-retention', config.RETENTION_SWEEP_MS * 3),
    logger,
    retentionDays: config.IMPORT_RETENTION_DAYS,
    intervalMs: config.RETENTION_SWEEP_MS,
    batchSize: config.RETENTION_BATCH_SIZE,
  });
  const exportRetention = new ExportRetention({
    repo: runtime.exports,
    lease: new StoreLease(runtime.store, 'export-retention', config.RETENTION_SWEEP_MS * 3),
    logger,
    retentionDays: config.EXPORT_RETENTION_DAYS,
    intervalMs: config.RETENTION_SWEEP_MS,
    batchSize: config.RETENTION_BATCH_SIZE,
  });
  return {
    start() {
      sweeper.start();
      retention.start();
      exportRetention.start();
    },
    async stop() {
      await sweeper.stop();
      await retention.stop();
      await exportRetention.stop();
    },
  };
}

/** The threads that read uploaded files (CSV, PDF, images, vCards), bounded per workspace and in all. */
function readerThreads(config: ImportConfig): ReaderThreads {
  return new ReaderThreads({
    ...FILE_READ_LIMITS,
    pdfInflatedBytes: config.PDF_INFLATED_MAX_MB * 1024 * 1024,
    atOnce: config.READERS_AT_ONCE,
    waiting: config.READERS_WAITING,
    perWorkspace: config.READERS_PER_WORKSPACE,
    heapMb: config.READER_HEAP_MB,
    timeoutMs: config.READER_TIMEOUT_MS,
  });
}

/** ImportService (imports and exports) and the import's part of privacy, on the gRPC server. */
function addImportServices(server: GrpcServer, runtime: Runtime, readers: ContactFileReaders, logger: Logger): void {
  server.addService(
    importV1.protoPath,
    importV1.ImportServiceName,
    {
      ...importHandlers({ repo: runtime.repo, files: runtime.files, logger, records: runtime.records, readers }),
      ...exportHandlers(new ExportRequests({ repo: runtime.exports, records: runtime.records, bus: runtime.bus, logger })),
    },
    importCallers,
  );
  server.addService(
    privacyV1.protoPath,
    privacyV1.ImportPrivacyServiceName,
    importPrivacyHandlers(new PersonRows(new PersonRowsRepository(runtime.store))),
    importPrivacyCallers,
  );
}

/** The upload server listening on UPLOAD_HOST:UPLOAD_PORT, or on a Unix socket (`unix:/path`, one-process mode: the port is then 0). */
function listenForUploads(upload: Server, config: ImportConfig): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    upload.once('error', reject);
    const listening = () => {
      const address = upload.address();
      resolve(typeof address === 'string' || !address ? 0 : (address as AddressInfo).port);
    };
    if (config.UPLOAD_HOST.startsWith('unix:')) upload.listen(config.UPLOAD_HOST.slice('unix:'.length), listening);
    else upload.listen(config.UPLOAD_PORT, config.UPLOAD_HOST, listening);
  });
}

/** The worker role: chunk and split consumers, and gRPC health for the Kubernetes probes. */
export async function startImportWorker(config: ImportConfig, options: StartImportOptions = {}): Promise<RunningImportService> {
  const logger = options.logger ?? createLogger('import-worker', { level: config.LOG_LEVEL });
  const tls = internalTlsFor(config, 'import-worker', logger);
  // Health first, NOT_SERVING, so a worker whose MongoDB or RabbitMQ does not answer yet waits, saying so.
  const health = new GrpcServer({ logger, tls, maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS });
  const port = await health.listen(listenAddress(config.GRPC_HOST, config.GRPC_PORT), { healthAddress: healthListenAddress(config) });
  const runtime = await openRuntime(config, logger, options, tls).catch(async (error: unknown) => {
    await health.shutdown(0);
    throw error;
  });
  const consumers = await startConsumers(config, runtime, logger);
  await health.serveWhileReady([storeReadiness(runtime.store), brokerReadiness(runtime.bus)]);
  return {
    port,
    async stop() {
      health.setServing(false);
      await Promise.all(consumers.map((c) => c.stop()));
      await health.shutdown();
      await runtime.close();
    },
  };
}
