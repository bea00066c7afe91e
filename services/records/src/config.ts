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

export const recordsConfigSchema = z
  .object({
    GRPC_HOST: z.string().default('0.0.0.0'),
    GRPC_PORT: env.port(grpcPort('records')),
    MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
    MONGO_DATABASE: z.string().min(1).default(TOPOLOGY.records.database),
    CRM_DATA_DIR: z.string().min(1).default('./data'),
    /**
     * Threads that run the SQLite file's reads, so that one workspace's heavy read does not hold
     * the others' calls (one workspace uses all but one of them); 0 runs reads on the event loop.
     * Not used with MongoDB.
     */
    SQLITE_READ_WORKERS: z.coerce.number().int().min(0).max(16).default(2),
    AMQP_URL: env.url(['amqp', 'amqps']),
    /** Where auth answers GetUsers (owners' names and workspace membership). */
    AUTH_GRPC_ADDR: env.grpcAddress(localGrpcAddress('auth')),
    /** Days the answer of a processed import chunk (BatchCreateContacts by idempotency key) is kept. */
    BATCH_RESULT_RETENTION_DAYS: env.days(7),
    /** Days audit log entries are kept (contract decisions: 365). */
    AUDIT_RETENTION_DAYS: env.days(365),
    /**
     * The suppression list's HMAC key (at least 32 characters; a Secret in Kubernetes). Unset: a
     * random key kept in the records store, made on first use (docs/privacy.md).
     */
    PRIVACY_HASH_KEY: z.string().min(32).optional(),
    ...retentionSweepSettings,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ...internalTlsSettings,
    ...grpcHealthSettings,
  })
  .superRefine(requireInternalTlsDir);

export type RecordsConfig = z.infer<typeof recordsConfigSchema>;
