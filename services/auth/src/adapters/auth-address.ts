import { readFileSync } from 'node:fs';
import { localGrpcAddress } from '@crm/config';
import { join } from 'node:path';

/**
 * `npm start` serves auth on a Unix socket whose path changes at every start, and writes that
 * address here so the operator CLI finds the running system from its data folder alone.
 */
export const AUTH_ADDRESS_FILE = 'auth-address';
export const DEFAULT_AUTH_ADDRESS = localGrpcAddress('auth');

export function authAddressPath(dataDir: string): string {
  return join(dataDir, AUTH_ADDRESS_FILE);
}

/** AUTH_GRPC_ADDR when set, else the address a running `npm start` left in the data folder, else the default. */
export function resolveAuthAddress(env: NodeJS.ProcessEnv): string {
  if (env.AUTH_GRPC_ADDR) return env.AUTH_GRPC_ADDR;
  try {
    const written = readFileSync(authAddressPath(env.CRM_DATA_DIR || './data'), 'utf8').trim();
    if (written) return written;
  } catch {
    // no running npm start in this data folder
  }
  return DEFAULT_AUTH_ADDRESS;
}
