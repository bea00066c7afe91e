export * from './domain-error';
export * from './logger';
