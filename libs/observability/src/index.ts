export * from './domain-error';
export * from './logger';
export * from './shutdown';
export * from './field-error-list';
export * from './dependency-wait';
export * from './thread-priority';
