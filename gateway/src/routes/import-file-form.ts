/**
 * A multipart form of one small file (the synchronous import's), read into memory with busboy:
 * the `file` part and the text fields beside it. Over `maxFileBytes` is a 413; no file part, two
 * files or a broken form a 400. A refused body is read to its end and dropped, so the client
 * always gets to read the answer.
 */
import busboy from 'busboy';
import { basename } from 'node:path';
import type { Request } from 'express';
import { DomainError } from '@crm/observability';

export interface FileForm {
  filename: string;
  content: Buffer;
  fields: Record<string, string>;
}

export function readFileForm(req: Request, maxFileBytes: number): Promise<FileForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fileSize: maxFileBytes, fields: 20, fieldSize: 256 * 1024, parts: 40 },
      });
    } catch {
      reject(DomainError.invalid('The multipart body has no boundary; send multipart/form-data.'));
      return;
    }
    const fields: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let filename: string | undefined;
    let refusal: DomainError | undefined;
    const refuse = (error: DomainError) => {
      refusal ??= error;
    };
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || filename !== undefined) {
        stream.resume();
        if (name === 'file') refuse(DomainError.invalid('Send one file per request.'));
        return;
      }
      filename = basename(String(info.filename ?? '').replace(/\\/g, '/')).trim();
      stream.on('data', (chunk: Buffer) => {
        if (!refusal) chunks.push(chunk);
      });
      stream.on('limit', () =>
        refuse(new DomainError('payload_too_large', `The file is larger than the ${maxFileBytes / (1024 * 1024)} MB limit.`)),
      );
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) refuse(DomainError.invalid(`The form field ${name} is too long.`));
      else fields[name] = value;
    });
    parser.on('filesLimit', () => refuse(DomainError.invalid('Send one file per request.')));
    parser.on('partsLimit', () => refuse(DomainError.invalid('The form has too many parts.')));
    parser.on('fieldsLimit', () => refuse(DomainError.invalid('The form has too many fields.')));
    parser.on('error', () => {
      refuse(DomainError.invalid('The upload is incomplete or is not a valid multipart form.'));
      req.unpipe(parser);
      req.resume();
      reject(refusal);
    });
    parser.on('close', () => {
      if (!refusal && filename === undefined) refuse(DomainError.invalid('No file part: send the file in a form field named "file".'));
      if (refusal) reject(refusal);
      else resolve({ filename: filename!, content: Buffer.concat(chunks), fields });
    });
    req.on('aborted', () => reject(DomainError.invalid('The upload was interrupted.')));
    req.pipe(parser);
  });
}
