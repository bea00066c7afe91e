export * from './domain-error';
export * from './logger';
export * from './shutdown';
