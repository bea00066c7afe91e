import type { Response } from 'express';
import type { StoredAnswer } from './idempotency-store';

/** The headers a replay repeats: those that describe the body. Rate-limit and request-id headers are the replay's own. */
const KEPT_HEADERS = ['content-type', 'location', 'etag'];

/**
 * Records what a response sends, whatever writes it (res.json, or a proxied stream), up to
 * `maxBytes` of body (past that the answer is undefined), and hands it to `beforeEnd` before the
 * response ends: a client that has the answer can count on a retry finding it kept.
 */
export class AnswerRecorder {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private overflowed = false;

  constructor(
    private readonly res: Response,
    private readonly maxBytes: number,
    beforeEnd: (answer: StoredAnswer | undefined) => Promise<void>,
  ) {
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      this.record(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as Response['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') this.record(chunk, rest[0]);
      void beforeEnd(this.answer()).finally(() => end(chunk, ...rest));
      return res;
    }) as Response['end'];
  }

  /** The answer as sent, or undefined when its body was over the bound. */
  answer(): StoredAnswer | undefined {
    if (this.overflowed) return undefined;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = this.res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    return { status: this.res.statusCode, headers, body: Buffer.concat(this.chunks).toString('base64') };
  }

  private record(chunk: unknown, encoding: unknown): void {
    if (this.overflowed || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk)
        : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    this.bytes += buffer.length;
    if (this.bytes > this.maxBytes) {
      this.overflowed = true;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(buffer);
  }
}
