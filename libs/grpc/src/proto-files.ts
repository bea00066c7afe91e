import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import * as grpc from '@grpc/grpc-js';

/**
 * Where the .proto files are: CRM_PROTO_DIR, or the first `proto/` folder found walking up from
 * this file (the repo root in a checkout and in the images, which copy `proto/` beside `libs/`).
 */
export function protoDir(): string {
  const fromEnv = process.env.CRM_PROTO_DIR;
  if (fromEnv) return resolve(fromEnv);
  let dir = __dirname;
  for (;;) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, 'auth'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Cannot find the proto/ folder; set CRM_PROTO_DIR.');
    dir = parent;
  }
}

/** The options every process loads protos with; the generated TypeScript types assume them. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: true,
};

const cache = new Map<string, grpc.GrpcObject>();

/** Loads `proto/<name>/v1/<name>.proto` (or any path relative to proto/) once per process. */
export function loadProto(relativePath: string): grpc.GrpcObject {
  let loaded = cache.get(relativePath);
  if (!loaded) {
    const root = protoDir();
    const definition = protoLoader.loadSync(join(root, relativePath), { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
    loaded = grpc.loadPackageDefinition(definition);
    cache.set(relativePath, loaded);
  }
  return loaded;
}

/** A service constructor by its full name, e.g. ('auth/v1/auth.proto', 'auth.v1.AuthService'). */
export function loadService(relativePath: string, fullName: string): grpc.ServiceClientConstructor {
  let node: unknown = loadProto(relativePath);
  for (const part of fullName.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'function' || !('service' in node)) throw new Error(`No service ${fullName} in ${relativePath}`);
  return node as grpc.ServiceClientConstructor;
}
