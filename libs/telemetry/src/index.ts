export * from './metrics';
export * from './start-telemetry';
export * from './trace-context';
