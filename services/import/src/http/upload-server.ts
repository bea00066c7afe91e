/**
 * The upload endpoint: the gateway authenticates and rate-limits `POST /api/crm/contacts/import/start/`,
 * then streams the multipart body here (http-proxy-middleware), with the caller context in
 * `x-crm-*` headers it sets from the verified credential. busboy parses the form as it arrives; the
 * file goes straight to file storage while its encoding is checked. Only a complete, valid upload
 * becomes a job; anything refused leaves nothing behind.
 *
 * This is the one HTTP surface of the service, so its few HTTP statuses are chosen here, from the
 * same error kinds the gRPC side uses.
 */
import busboy from 'busboy';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { newMessage, type MessageBus } from '@crm/bus';
import type { InternalTls } from '@crm/grpc';
import { DomainError, isDomainError, type ErrorKind, type Logger } from '@crm/observability';
import { withIncomingTraceContext } from '@crm/telemetry';
import { EncodingSniffer } from '../adapters/csv/text-encoding';
import { mapsCustomFields, parseFieldMappings, resolveCustomTargets } from '../domain/column-plan';
import { queuedJob, type ImportJobDocument } from '../domain/import-job';
import type { FileStorage, StoredFileWriter } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';
import { SPLIT_MESSAGE, type SplitPayload } from '../application/import-messages';
import type { RecordsClient } from '../application/ports';
import { readContactCustomFields } from '../application/custom-field-definitions';
import { UPLOADER_IDENTITY } from '../grpc/import-callers';

export const UPLOAD_PATH = '/v1/uploads';
export const UPLOAD_SECRET_HEADER = 'x-crm-upload-secret';
/** The spec's CSV body size limit. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Room for the multipart framing and the small fields around a file of the maximum size. */
const FORM_OVERHEAD_BYTES = 256 * 1024;
/** How much of a refused body is read and dropped after the refusal before the connection is cut. */
const DISCARD_BYTES = 64 * 1024 * 1024;

const STATUS: Record<ErrorKind, number> = {
  invalid_argument: 400,
  validation_failed: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 400, // only an unknown source_uid reaches here as not_found
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

export interface UploadServerDeps {
  repo: ImportJobRepository;
  files: FileStorage;
  bus: MessageBus;
  records: RecordsClient;
  logger: Logger;
  /** When set, every request must carry it in x-crm-upload-secret. */
  secret?: string | undefined;
  /**
   * Import's internal certificate: the endpoint then speaks HTTPS, takes only clients with a
   * certificate of the internal CA (checked at the handshake), and only the gateway's (checked per
   * request), since it believes the caller headers. Null: plain HTTP (INTERNAL_TLS=off, tests).
   */
  tls: InternalTls | null;
  stallMs: number;
}

interface Caller {
  workspaceId: string;
  actorId: string;
  actorKind: 'user' | 'api_key';
  requestId: string;
}

export function createUploadServer(deps: UploadServerDeps): Server {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // In the trace of the request the gateway forwards (its traceparent header).
    withIncomingTraceContext(req.headers, undefined, () => handle(deps, req, res)).catch((error: unknown) => {
      deps.logger.error({ err: error }, 'upload failed');
      reply(res, 500, { detail: 'A server error occurred.' });
    });
  };
  const server: Server = deps.tls
    ? createTlsServer(
        { ca: deps.tls.ca, cert: deps.tls.cert, key: deps.tls.key, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
        listener,
      )
    : createServer(listener);
  server.requestTimeout = 300_000;
  return server;
}

async function handle(deps: UploadServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  if (path === '/healthz') return reply(res, 200, { status: 'ok' });
  if (path !== UPLOAD_PATH) return refuse(req, res, 404, 'Not found.');
  if (req.method !== 'POST') return refuse(req, res, 405, 'Method not allowed.');
  if (deps.tls && peerIdentity(req) !== UPLOADER_IDENTITY) return refuse(req, res, 403, 'Forbidden.');
  if (deps.secret && !sameSecret(req.headers[UPLOAD_SECRET_HEADER], deps.secret)) return refuse(req, res, 403, 'Forbidden.');
  const caller = callerOf(req);
  if (!caller) return refuse(req, res, 401, 'Authentication credentials were not provided.');
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
    return refuse(req, res, 400, 'Send the file as multipart/form-data with a form field named "file".');
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_FILE_BYTES + FORM_OVERHEAD_BYTES) return refuse(req, res, 413, tooLargeMessage());

  const outcome = await receiveForm(req, deps.files);
  // receiveForm has already set the rest of a refused body to be discarded.
  if ('error' in outcome) return reply(res, STATUS[outcome.error.kind], { detail: outcome.error.message });
  const { upload, fields } = outcome;
  try {
    const job = await acceptUpload(deps, caller, upload, fields);
    // The 202 does not wait for the broker: a lost split message is re-sent by the sweeper.
    const split: SplitPayload = { jobUid: job.id, workspaceId: caller.workspaceId };
    deps.bus
      .publish(newMessage(SPLIT_MESSAGE, split, { correlationId: caller.requestId }))
      .catch((err: unknown) => deps.logger.warn({ err, jobUid: job.id }, 'could not publish the split message; the sweeper will'));
    deps.logger.info({ jobUid: job.id, workspaceId: caller.workspaceId, bytes: upload.bytes, encoding: upload.encoding }, 'import queued');
    reply(res, 202, { uid: job.id, status: 'queued', filename: job.filename });
  } catch (error) {
    await deps.files.remove(upload.fileId).catch(() => undefined);
    if (isDomainError(error) && error.kind !== 'internal') return reply(res, STATUS[error.kind], { detail: error.message });
    throw error;
  }
}

interface ReceivedFile {
  fileId: string;
  filename: string;
  bytes: number;
  encoding: ImportJobDocument['encoding'];
}

type FormOutcome = { upload: ReceivedFile; fields: Record<string, string> } | { error: DomainError };

/** Streams the form: the file to storage, the fields into memory. Refusals clean up after themselves. */
function receiveForm(req: IncomingMessage, files: FileStorage): Promise<FormOutcome> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fileSize: MAX_FILE_BYTES, fields: 20, fieldSize: 256 * 1024, parts: 40 },
      });
    } catch {
      resolve({ error: DomainError.invalid('The multipart body has no boundary; send multipart/form-data.') });
      return;
    }
    new FormReceiver(req, files, parser, resolve).start();
  });
}

/** One form being received: its one file part to storage, its fields, the first refusal, settled once. */
class FormReceiver {
  private readonly fields: Record<string, string> = {};
  private writer: StoredFileWriter | undefined;
  private received: ReceivedFile | undefined;
  private fileDone: Promise<void> = Promise.resolve();
  private refusal: DomainError | undefined;
  private settled = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly files: FileStorage,
    private readonly parser: busboy.Busboy,
    private readonly settle: (outcome: FormOutcome) => void,
  ) {}

  start(): void {
    const { parser, req } = this;
    parser.on('file', (name, stream, info) => this.receiveFile(name, stream, info));
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return this.refuse(DomainError.invalid(`The form field ${name} is too long.`));
      this.fields[name] = value;
    });
    parser.on('filesLimit', () => this.refuse(DomainError.invalid('Send one file per request.')));
    parser.on('partsLimit', () => this.refuse(DomainError.invalid('The form has too many parts.')));
    parser.on('fieldsLimit', () => this.refuse(DomainError.invalid('The form has too many fields.')));
    parser.on('error', () => this.refuse(DomainError.invalid('The upload is incomplete or is not a valid multipart form.')));
    parser.on('close', () => void this.finish());
    req.on('aborted', () => this.refuse(DomainError.invalid('The upload was interrupted.')));
    req.on('error', () => this.refuse(DomainError.invalid('The upload was interrupted.')));
    req.pipe(parser);
  }

  private refuse(error: DomainError): void {
    this.refusal ??= error;
    void this.finish();
  }

  private async finish(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    try {
      await this.fileDone;
    } catch (error) {
      this.refusal ??= DomainError.invalid(`The file could not be stored: ${(error as Error).message}`);
    }
    if (!this.refusal && !this.received) this.refusal = DomainError.invalid('No file part: send the CSV in a form field named "file".');
    if (this.refusal) {
      await this.writer?.abort().catch(() => undefined);
      this.req.unpipe(this.parser);
      discardRest(this.req);
      this.settle({ error: this.refusal });
      return;
    }
    this.settle({ upload: this.received!, fields: this.fields });
  }

  /** The `file` part, streamed to storage while its size and encoding are read; any other file part is refused. */
  private receiveFile(name: string, stream: Readable & { truncated?: boolean }, info: busboy.FileInfo): void {
    if (name !== 'file' || this.writer) {
      stream.resume();
      if (this.writer || name === 'file') return this.refuse(DomainError.invalid('Send one file per request.'));
      return;
    }
    const filename = basename(String(info.filename ?? '').replace(/\\/g, '/')).trim();
    if (!filename.toLowerCase().endsWith('.csv')) {
      stream.resume();
      return this.refuse(DomainError.invalid('Only .csv files can be imported.'));
    }
    const fileId = randomUUID();
    const sniffer = new EncodingSniffer();
    let bytes = 0;
    const target = this.files.create(fileId);
    this.writer = target;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      sniffer.push(chunk);
    });
    stream.on('limit', () => this.refuse(new DomainError('payload_too_large', tooLargeMessage())));
    this.fileDone = new Promise<void>((resolveFile, rejectFile) => {
      stream.on('end', () => {
        target.stream.end();
        target.done().then(() => {
          if (stream.truncated) return resolveFile();
          if (bytes === 0) this.refusal ??= DomainError.invalid('The file is empty.');
          const { encoding, binary } = sniffer.finish();
          if (binary) this.refusal ??= DomainError.invalid('The file is not a CSV text file: it contains binary data.');
          this.received = { fileId, filename, bytes, encoding };
          resolveFile();
        }, rejectFile);
      });
      stream.on('error', rejectFile);
    });
    this.fileDone.catch(() => undefined);
    stream.pipe(target.stream, { end: false });
  }
}

async function acceptUpload(
  deps: UploadServerDeps,
  caller: Caller,
  upload: ReceivedFile,
  fields: Record<string, string>,
): Promise<ImportJobDocument> {
  let fieldMappings = parseFieldMappings(fields.field_mappings);
  // A mapping to `customFields.<key>` is checked now, like a built-in target, so that a typo is a 400.
  if (mapsCustomFields(fieldMappings))
    fieldMappings = resolveCustomTargets(fieldMappings, await readContactCustomFields(deps.records, caller));
  const sourceUid = fields.source_uid?.trim() || null;
  let sourceName = '';
  if (sourceUid) {
    try {
      const answer = await deps.records.call('GetSource', { uid: sourceUid }, caller, { timeoutMs: 5_000 });
      sourceName = answer.source?.name ?? '';
    } catch (error) {
      if (isDomainError(error) && (error.kind === 'not_found' || error.kind === 'invalid_argument')) {
        throw DomainError.invalid(`Unknown source_uid: no source ${JSON.stringify(sourceUid.slice(0, 100))} in this workspace.`);
      }
      throw error;
    }
  }
  const job = queuedJob(
    {
      id: upload.fileId,
      filename: upload.filename,
      fileId: upload.fileId,
      fileBytes: upload.bytes,
      encoding: upload.encoding,
      sourceUid,
      sourceName,
      fieldMappings,
      actorId: caller.actorId,
      actorKind: caller.actorKind,
    },
    caller.workspaceId,
  );
  await deps.repo.createJob(job, deps.stallMs);
  return job;
}

function callerOf(req: IncomingMessage): Caller | undefined {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  const workspaceId = header('x-crm-workspace-id');
  const actorId = header('x-crm-actor-id');
  const kind = header('x-crm-actor-kind');
  if (!workspaceId || !actorId) return undefined;
  return {
    workspaceId,
    actorId,
    actorKind: kind === 'api_key' ? 'api_key' : 'user',
    requestId: header('x-crm-request-id') ?? randomUUID(),
  };
}

/** The common name of the client certificate the TLS handshake verified. */
function peerIdentity(req: IncomingMessage): string | undefined {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const cn = socket.getPeerCertificate().subject?.CN;
  return typeof cn === 'string' ? cn : undefined;
}

function sameSecret(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function tooLargeMessage(): string {
  return `The file is larger than the ${MAX_FILE_BYTES / (1024 * 1024)} MB limit.`;
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, detail: string): void {
  discardRest(req);
  reply(res, status, { detail });
}

/**
 * Reads and drops the rest of a refused body while the refusal goes out on the same (kept-alive)
 * connection: closing it under a body still arriving would cut the proxy off with EPIPE before it
 * could pass the answer on. Past DISCARD_BYTES the connection is cut all the same.
 */
function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_BYTES) req.socket.destroy();
  });
  req.resume();
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
