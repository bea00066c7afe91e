import {
  env,
  grpcHealthSettings,
  internalTlsSettings,
  requireInternalTlsDir,
  retentionSweepSettings,
  z,
  grpcPort,
  localGrpcAddress,
  TOPOLOGY,
} from '@crm/config';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * One schema for both roles (`--role=server` and `--role=worker`): they share the store, the file
 * storage and the bus, so they read the same variables.
 */
export const importConfigSchema = z
  .object({
    GRPC_HOST: z.string().default('0.0.0.0'),
    /** gRPC (job reads) in the server role; gRPC health only in the worker role (0 picks a free port). */
    GRPC_PORT: env.port(grpcPort('import')),
    /** The upload HTTP endpoint the gateway streams multipart bodies to (server role). */
    UPLOAD_HOST: z.string().default('127.0.0.1'),
    UPLOAD_PORT: env.port(TOPOLOGY.import.ports.upload),
    /**
     * Shared secret the gateway sends in `x-crm-upload-secret`. Required unless the upload endpoint
     * listens on loopback only: the endpoint trusts the caller headers the gateway sets.
     */
    UPLOAD_SECRET: z.string().min(16).optional(),
    MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
    MONGO_DATABASE: z.string().min(1).default(TOPOLOGY.import.database),
    /** The embedded store and the uploaded files (until their job ends). */
    CRM_DATA_DIR: z.string().min(1).default('./data'),
    AMQP_URL: env.url(['amqp', 'amqps']),
    RECORDS_GRPC_ADDR: env.grpcAddress(localGrpcAddress('records')),
    /** Rows per chunk message (records gets them in batches of RECORDS_BATCH_ROWS, contact-batch.ts). */
    CHUNK_ROWS: z.coerce.number().int().min(1).max(5000).default(500),
    /** Chunks a worker handles at once. */
    WORKER_PREFETCH: z.coerce.number().int().min(1).max(100).default(4),
    /**
     * How long a chunk whose records call fails is retried (1 s, 5 s, 15 s, 30 s, then every minute) from
     * its first delivery before its last attempt, which looks its batch up before writing it off.
     */
    CHUNK_RETRY_BUDGET_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
    /** A job that has moved nothing for this long has its missing work re-published by the sweeper. */
    IMPORT_STALL_MS: z.coerce.number().int().min(200).max(3_600_000).default(30_000),
    /** How often the sweeper looks for stalled jobs (server role). */
    IMPORT_SWEEP_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    /** Days an ended job (complete, failed, cancelled) is kept with its report rows, then deleted (404). */
    IMPORT_RETENTION_DAYS: env.days(90),
    /** Days an export and its file are kept after it was asked for, then deleted (404). */
    EXPORT_RETENTION_DAYS: env.days(7),
    /** An export file is kept as chunks of about this many KiB of text (one store document each). */
    EXPORT_CHUNK_KIB: z.coerce.number().int().min(16).max(8192).default(1024),
    /** Records per message of the snapshot read from records. */
    EXPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(2000).default(1000),
    ...retentionSweepSettings,
    /**
     * Reader threads of the synchronous import (vCard files, PDFs, recognised card text): per kind
     * of file, how many run at once and how many more may wait (beyond: 503 with Retry-After).
     */
    READERS_AT_ONCE: z.coerce.number().int().min(1).max(16).default(1),
    READERS_WAITING: z.coerce.number().int().min(0).max(100).default(2),
    /** Of those, how many one workspace may have running or waiting (per kind), so one tenant cannot fill the line. */
    READERS_PER_WORKSPACE: z.coerce.number().int().min(1).max(100).default(1),
    /** Heap ceiling of one reader thread (MB), and how long one read may take (ms) before it is stopped (422). */
    READER_HEAP_MB: z.coerce.number().int().min(32).max(2048).default(128),
    READER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(30_000),
    /** What a PDF's compressed streams may inflate to, together (MB); more is a 422 before PDF.js opens it. */
    PDF_INFLATED_MAX_MB: z.coerce.number().int().min(1).max(1024).default(32),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ...internalTlsSettings,
    ...grpcHealthSettings,
  })
  .superRefine(requireInternalTlsDir)
  .superRefine((config, ctx) => {
    if (!config.UPLOAD_SECRET && !LOOPBACK.has(config.UPLOAD_HOST) && !config.UPLOAD_HOST.startsWith('unix:')) {
      ctx.addIssue({
        code: 'custom',
        path: ['UPLOAD_SECRET'],
        message: `required when UPLOAD_HOST (${config.UPLOAD_HOST}) is not a loopback address: the upload endpoint trusts the gateway's caller headers`,
      });
    }
  });

export type ImportConfig = z.infer<typeof importConfigSchema>;
