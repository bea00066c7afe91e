/**
 * The gateway's two ways to the import service: gRPC for job reads, and the upload endpoint that
 * multipart bodies are streamed to (IMPORT_UPLOAD_URL; IMPORT_UPLOAD_SECRET is sent as
 * x-crm-upload-secret and must match the import service's UPLOAD_SECRET when that is set).
 */
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
