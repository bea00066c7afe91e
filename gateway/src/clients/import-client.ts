/**
 * The gateway's two ways to the import service: gRPC for job reads, and the upload endpoint that
 * multipart bodies are streamed to. The upload settings are read here, once at start, because the
 * gateway's config schema is shared with other areas: IMPORT_UPLOAD_URL (default
 * http://127.0.0.1:8081) and IMPORT_UPLOAD_SECRET (sent as x-crm-upload-secret; must match the
 * import service's UPLOAD_SECRET when that is set).
 */
import { z } from 'zod';
import { GrpcClient, importV1, type CallOptions, type CallerContext } from '@crm/grpc';

export interface ImportClient {
  call<K extends keyof importV1.ImportServiceMethods & string>(
    method: K,
    request: Partial<importV1.ImportServiceMethods[K]['request']>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<importV1.ImportServiceMethods[K]['response']>;
  close?(): void;
}

export function openImportClient(address: string): GrpcClient<importV1.ImportServiceMethods> {
  return new GrpcClient<importV1.ImportServiceMethods>(importV1.protoPath, importV1.ImportServiceName, address);
}

export interface UploadTarget {
  url: string;
  secret?: string | undefined;
}

const uploadTargetSchema = z.object({
  IMPORT_UPLOAD_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8081'),
  IMPORT_UPLOAD_SECRET: z.string().min(16).optional(),
});

/** Throws with every bad variable named, like the gateway's own config loading. */
export function uploadTargetFromEnv(env: NodeJS.ProcessEnv = process.env): UploadTarget {
  const parsed = uploadTargetSchema.safeParse({
    IMPORT_UPLOAD_URL: env.IMPORT_UPLOAD_URL || undefined,
    IMPORT_UPLOAD_SECRET: env.IMPORT_UPLOAD_SECRET || undefined,
  });
  if (!parsed.success) {
    throw new Error(`Invalid configuration:\n${parsed.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  return { url: parsed.data.IMPORT_UPLOAD_URL.replace(/\/+$/, ''), secret: parsed.data.IMPORT_UPLOAD_SECRET };
}
