export * from './caller-context';
export * from './client';
export * from './errors';
export * from './health-client';
export * from './proto-files';
export * from './server';
export * as authV1 from './generated/auth.v1';
export * as recordsV1 from './generated/records.v1';
