/**
 * The spec's encoding rule: UTF-8 (with or without a BOM); when UTF-8 decoding fails, latin-1,
 * read as windows-1252 (what "latin-1" means in practice, and what WHATWG decoders do with it).
 * The upload is checked as it streams in, so the splitter knows the encoding before it starts.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';

export type FileEncoding = 'utf-8' | 'windows-1252';

/** Watches an upload's bytes: whether they are valid UTF-8, and whether any is a NUL (binary data). */
export class EncodingSniffer {
  private decoder: TextDecoder | undefined = new TextDecoder('utf-8', { fatal: true });
  private nul = false;

  push(chunk: Buffer): void {
    if (!this.nul && chunk.includes(0)) this.nul = true;
    if (!this.decoder) return;
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      this.decoder = undefined;
    }
  }

  /** Call once, after the last chunk. */
  finish(): { encoding: FileEncoding; binary: boolean } {
    if (this.decoder) {
      try {
        this.decoder.decode();
      } catch {
        this.decoder = undefined;
      }
    }
    return { encoding: this.decoder ? 'utf-8' : 'windows-1252', binary: this.nul };
  }
}

/** Bytes in, text out; a UTF-8 byte-order mark is dropped. */
export function decodeText(encoding: FileEncoding): Transform {
  const decoder = new TextDecoder(encoding);
  return new Transform({
    readableObjectMode: false,
    decodeStrings: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      const text = decoder.decode(chunk, { stream: true });
      callback(null, text.length > 0 ? text : undefined);
    },
    flush(callback: TransformCallback) {
      const rest = decoder.decode();
      callback(null, rest.length > 0 ? rest : undefined);
    },
  });
}
