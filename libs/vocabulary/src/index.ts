/**
 * The CRM's vocabulary, defined once: the values of choice fields, plans, automation kinds, field
 * limits, the email rule and the paging rules. The gateway, records, import, automation and auth
 * read them from here, so a stage added or a limit changed is one edit.
 */
export * from './records';
export * from './automation';
export * from './plans';
export * from './limits';
export * from './email';
export * from './characters';
export * from './json-length';
export * from './timestamps';
export * from './fields';
export * from './record-fields';
export * from './custom-fields';
export * from './api-key-scopes';
export * from './batch-writes';
export * from './record-list-items';
export * from './webhook-envelopes';
export * from './record-event-groups';
