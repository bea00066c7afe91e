/** POST /api/{kind}/batch/: the operations, what a record may be matched on, and the limits. */
export const BATCH_OPERATIONS = ['create', 'update', 'upsert'] as const;
export type BatchOperation = (typeof BATCH_OPERATIONS)[number];

/** Built-in match fields; a unique custom field is matched as `customFields.<key>`. */
export const BATCH_MATCH_FIELDS = ['id', 'email', 'externalId'] as const;
export type BatchMatchField = (typeof BATCH_MATCH_FIELDS)[number];

/** The kinds whose records carry an email to match on. */
export const EMAIL_MATCH_KINDS = ['contact', 'lead'] as const;

export const BATCH_LIMITS = {
  maxRecords: 1000,
  /** The request body (413 above); the gateway's other routes keep BODY_LIMIT. */
  maxBodyBytes: 10 * 1024 * 1024,
} as const;

export const BATCH_RESULT_STATUSES = ['created', 'updated', 'unchanged', 'error', 'skipped'] as const;
export type BatchResultStatus = (typeof BATCH_RESULT_STATUSES)[number];
