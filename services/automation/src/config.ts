import {
  env,
  grpcHealthSettings,
  retentionSweepSettings,
  internalTlsSettings,
  requireInternalTlsDir,
  z,
  grpcPort,
  localGrpcAddress,
  TOPOLOGY,
} from '@crm/config';

export const automationConfigSchema = z
  .object({
    GRPC_HOST: z.string().default('0.0.0.0'),
    /** The server's gRPC port; workers serve gRPC health here (0 picks a free port). */
    GRPC_PORT: env.port(grpcPort('automation')),
    MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
    MONGO_DATABASE: z.string().min(1).default(TOPOLOGY.automation.database),
    CRM_DATA_DIR: z.string().min(1).default('./data'),
    /** RabbitMQ; the in-process bus when unset (CRM_BUS_EXCHANGE and CRM_QUEUE_PREFIX are read by the bus). */
    AMQP_URL: env.url(['amqp', 'amqps']),
    RECORDS_GRPC_ADDR: env.grpcAddress(localGrpcAddress('records')),
    AUTH_GRPC_ADDR: env.grpcAddress(localGrpcAddress('auth')),
    /** Multiplies every wait step's delay (0.001 turns a day into 86.4 s); for local runs and tests. */
    CRM_WAIT_TIME_SCALE: z.coerce.number().positive().max(1000).default(1),
    /** How often a worker looks for overdue steps to re-publish. */
    SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    /** How overdue a step must be before the sweeper re-publishes it. */
    SWEEP_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
    /** smtp(s)://user:pass@host:port; emails go to the log transport when unset. */
    SMTP_URL: env.url(['smtp', 'smtps']),
    EMAIL_FROM: z.string().min(3).default('CRM Automation <automation@crm.local>'),
    /** An OpenAI-compatible API base URL and model for ai_generated emails; those steps fail, saying so, without them. */
    AI_PROVIDER_URL: env.url(['https', 'http']),
    AI_MODEL: z.string().min(1).optional(),
    AI_API_KEY: z.string().min(1).optional(),
    /** How long a worker's claim on a step holds without renewal; the worker renews it every third of this while the step works. */
    STEP_CLAIM_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
    /** SMTP connection, greeting and idle-socket timeout, and the bound on one whole send; below STEP_CLAIM_MS. */
    SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(20_000),
    /** The bound on one model-provider call for an ai_generated email; below STEP_CLAIM_MS. */
    AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
    /** Days sent (or failed, or unknown) emails are kept after they were written. */
    EMAIL_RETENTION_DAYS: env.days(90),
    /** Days notifications are kept after they were made (they have no read state). */
    NOTIFICATION_RETENTION_DAYS: env.days(90),
    /** Days a finished run (completed, failed, cancelled) and its execution log are kept after it ended. */
    RUN_RETENTION_DAYS: env.days(90),
    /** Days a webhook delivery attempt stays in the delivery log. */
    WEBHOOK_DELIVERY_RETENTION_DAYS: env.days(30),
    /** Allows http:// webhook targets and loopback, private and link-local addresses: development only. */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: env.bool(false),
    /** The wait before a failed webhook delivery's first retry; it doubles after each failure. */
    WEBHOOK_RETRY_FIRST_MS: z.coerce.number().int().min(100).max(15_000).default(10_000),
    /** The longest wait between two attempts of one webhook delivery. */
    WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
    /** How long after its first attempt a webhook delivery is still retried (then the subscription is marked failing). */
    WEBHOOK_RETRY_HORIZON_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .max(7 * 86_400_000)
      .default(86_400_000),
    /** The bound on one webhook POST, connection to answer. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** How much of a receiver's answer is read and kept in the delivery log. */
    WEBHOOK_RESPONSE_MAX_BYTES: z.coerce.number().int().min(0).max(65_536).default(1_024),
    ...retentionSweepSettings,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ...internalTlsSettings,
    ...grpcHealthSettings,
  })
  .superRefine(requireInternalTlsDir)
  .superRefine((config, ctx) => {
    // A step's transports must give up before its claim could lapse, or a stuck send outlives the claim.
    for (const name of ['SMTP_TIMEOUT_MS', 'AI_TIMEOUT_MS'] as const) {
      if (config[name] >= config.STEP_CLAIM_MS) {
        ctx.addIssue({ code: 'custom', path: [name], message: `must be below STEP_CLAIM_MS (${config.STEP_CLAIM_MS})` });
      }
    }
  });

export type AutomationConfig = z.infer<typeof automationConfigSchema>;
