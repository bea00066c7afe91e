export * from './port';
export { openStore, locationFromEnv } from './open-store';
export type { LocationSettings } from './open-store';
