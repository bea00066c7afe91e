export * from './metrics';
export * from './start-telemetry';
export * from './trace-carrier';
export * from './trace-context';
