export * from './metrics';
export * from './start-telemetry';
