/**
 * Opens the store a service's configuration asks for: MongoDB when MONGO_URL is set, otherwise
 * the embedded SQLite file under CRM_DATA_DIR.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openWhenReachable, urlHost, type DependencyWaitOptions, type Logger } from '@crm/observability';
import type { MongoStoreAdapter as MongoAdapter } from './mongo/mongo-store';
import { DocumentStore, OpenStoreOptions, StoreError, StoreLocation } from './port';
import { createDocumentStore } from './scoped-store';
import { SqliteStoreAdapter } from './sqlite/sqlite-store';
import { StoreAdapter } from './store-adapter';

export async function openStore(options: OpenStoreOptions): Promise<DocumentStore> {
  return createDocumentStore(await openAdapter(options));
}

export interface StoreWaitOptions extends Omit<DependencyWaitOptions, 'retryable'> {
  /** How long one attempt looks for a MongoDB server (default 10 s). */
  attemptTimeoutMs?: number;
}

/**
 * Opens the store, waiting for a MongoDB that does not answer yet (capped exponential backoff, each
 * attempt logged) instead of failing; any other failure (a bad URL, refused credentials, a broken
 * SQLite file) is thrown at once.
 */
export async function openStoreWhenReachable(
  options: OpenStoreOptions,
  logger: Logger,
  wait: StoreWaitOptions = {},
): Promise<DocumentStore> {
  if (options.location.kind !== 'mongo') return openStore(options);
  const dependency = { name: 'MongoDB', where: urlHost(options.location.url) };
  const adapter = await openWhenReachable(dependency, () => openAdapter(options, wait.attemptTimeoutMs), logger, {
    ...wait,
    retryable: (error) => error instanceof StoreError && error.code === 'unavailable',
  });
  return createDocumentStore(adapter);
}

async function openAdapter({ location, collections }: OpenStoreOptions, attemptTimeoutMs?: number): Promise<StoreAdapter> {
  switch (location.kind) {
    case 'sqlite':
      return SqliteStoreAdapter.open(location.file, collections, location.readWorkers);
    case 'mongo': {
      // Loaded only when asked for: mongoose costs about a second of start-up on every embedded run.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { MongoStoreAdapter } = require('./mongo/mongo-store') as { MongoStoreAdapter: typeof MongoAdapter };
      return MongoStoreAdapter.open(location.url, location.database, collections, attemptTimeoutMs);
    }
    default:
      throw new Error(`Unknown store location: ${JSON.stringify(location)}`);
  }
}

export interface LocationSettings {
  /** The service's name (`auth`, `records`, …): names its SQLite file and its default database. */
  service: string;
  /** MONGO_URL; when set (non-empty), the store is MongoDB. */
  mongoUrl?: string | undefined;
  /** MONGO_DATABASE; defaults to `crm_<service>`. */
  mongoDatabase?: string | undefined;
  /** CRM_DATA_DIR; defaults to `./data`. Created when missing. */
  dataDir?: string | undefined;
  /** SQLITE_READ_WORKERS: threads that run the SQLite file's reads (none: reads run on the event loop). */
  sqliteReadWorkers?: number | undefined;
}

export function locationFromEnv({ service, mongoUrl, mongoDatabase, dataDir, sqliteReadWorkers }: LocationSettings): StoreLocation {
  if (!/^[a-z][a-z0-9_-]*$/.test(service)) throw new Error(`Invalid service name for a store: ${JSON.stringify(service)}`);
  if (mongoUrl) return { kind: 'mongo', url: mongoUrl, database: mongoDatabase || `crm_${service.replace(/-/g, '_')}` };
  const directory = resolve(dataDir || './data');
  mkdirSync(directory, { recursive: true });
  return { kind: 'sqlite', file: join(directory, `${service}.db`), ...(sqliteReadWorkers && { readWorkers: sqliteReadWorkers }) };
}
