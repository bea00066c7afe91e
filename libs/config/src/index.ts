export * from './load-config';
export * from './internal-tls-settings';
export * from './topology-defaults';
export * from './process-role';
