/**
 * `POST /api/contacts/import/`: the synchronous import of a small CSV, a vCard file, a
 * business-card photo or a PDF. The form is read here (at most 5 MB, so in memory), the import
 * service reads the file and creates the contacts, and the answer lists them as contact list items.
 * Mounted before the JSON body parser (RouteModule.rawBodyRouter).
 */
import { Router, type Request, type Response } from 'express';
import type { importV1 } from '@crm/grpc';
import { DomainError, isDomainError } from '@crm/observability';
import { CONTACT_FIELDS } from '@crm/vocabulary';
import type { ImportClient } from '../clients/import-client';
import type { RecordsClient } from '../clients/records-client';
import { RECORDS_DEADLINE_MS } from '../clients/records-client';
import { discardBodyAfterAnswer } from '../middleware/discard-body';
import { operation, type OpenApiOperation, type OpenApiPaths } from '../openapi/operation';
import { callerContext, callerOf } from '../request-context';
import { readFileForm } from './import-file-form';
import { DUPLICATE_ITEM, ROW_ERROR_ITEM } from './import-row-schemas';
import { contactKind } from './records/contacts.routes';
import { answerSchema, renderAnswer } from './field-table';
import { renderRecord } from './records/record-shape';
import { nullIfEmpty } from './validate';

export const CONTACT_IMPORT_NOW_PATH = '/api/contacts/import';
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const FORM_OVERHEAD_BYTES = 256 * 1024;
const DISCARD_BYTES = 64 * 1024 * 1024;
/** Text recognition may take up to 30 s in the import service; records then creates the batch. */
const IMPORT_DEADLINE_MS = 90_000;
const EXTENSIONS = /\.(csv|vcf|vcard|jpe?g|png|pdf)$/i;
const CONTACT_READS_AT_ONCE = 8;

function dryRunOf(req: Request): boolean {
  const value = req.query.dryRun;
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw DomainError.invalid('dryRun must be true or false.');
}

/** A contact the import would create, as a list item: no id or timestamps yet. */
function wouldBe(contact: importV1.ImportedContact): Record<string, unknown> {
  // Left unset, as records leaves a null: id, accountId, assignedTo and the timestamps.
  const { contactId: _contactId, ...fields } = contact;
  return renderAnswer(
    contactKind.answer,
    { ...fields, stage: contact.stage || CONTACT_FIELDS.stage.write.default, externalId: contact.externalId || null },
    'listed',
  );
}

/** The created contacts as records has them, in row order. */
async function createdItems(records: RecordsClient, res: Response, created: importV1.ImportedContact[]): Promise<unknown[]> {
  const items: unknown[] = new Array(created.length);
  let next = 0;
  const read = async () => {
    for (let index = next++; index < created.length; index = next++) {
      const { contact } = await records.call('GetContact', { id: created[index]!.contactId }, callerContext(res), {
        timeoutMs: RECORDS_DEADLINE_MS,
      });
      items[index] = renderRecord(contactKind.answer, contact, 'listed');
    }
  };
  await Promise.all(Array.from({ length: CONTACT_READS_AT_ONCE }, read));
  return items;
}

export interface InFlightLimits {
  /** Synchronous imports this gateway holds at once. */
  total: number;
  /** Of those, from one workspace: one tenant's burst leaves room for the others. */
  perWorkspace: number;
}

/**
 * Counts the synchronous imports this gateway holds (from the request's start to its answer's end
 * or its connection's close): each buffers up to 5 MB for as long as the import service reads it.
 * Past either limit the request is refused (503, Retry-After) before its body is read.
 */
export function inFlightLimit(limits: InFlightLimits): (workspaceId: string, req: Request, res: Response) => void {
  let total = 0;
  const byWorkspace = new Map<string, number>();
  return (workspaceId, req, res) => {
    const mine = byWorkspace.get(workspaceId) ?? 0;
    if (total >= limits.total || mine >= limits.perWorkspace) {
      discardBodyAfterAnswer(req, res, DISCARD_BYTES);
      throw new DomainError('unavailable', 'Too many files are being imported at once; try again shortly.');
    }
    total += 1;
    byWorkspace.set(workspaceId, mine + 1);
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      total -= 1;
      const left = (byWorkspace.get(workspaceId) ?? 1) - 1;
      if (left > 0) byWorkspace.set(workspaceId, left);
      else byWorkspace.delete(workspaceId);
    };
    res.once('finish', release);
    res.once('close', release);
  };
}

export function contactImportNowRouter(client: ImportClient, records: RecordsClient, inFlight: InFlightLimits): Router {
  const admit = inFlightLimit(inFlight);
  return Router().post(CONTACT_IMPORT_NOW_PATH, async (req, res) => {
    admit(callerOf(res).workspaceId, req, res);
    if (!req.is('multipart/form-data')) throw DomainError.invalid('Send the file as multipart/form-data with a form field named "file".');
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > MAX_FILE_BYTES + FORM_OVERHEAD_BYTES) {
      discardBodyAfterAnswer(req, res, DISCARD_BYTES);
      throw new DomainError('payload_too_large', `The file is larger than the ${MAX_FILE_BYTES / (1024 * 1024)} MB limit.`);
    }
    const dryRun = dryRunOf(req);
    const form = await readFileForm(req, MAX_FILE_BYTES).catch((error: unknown) => {
      discardBodyAfterAnswer(req, res, DISCARD_BYTES);
      throw error;
    });
    if (!EXTENSIONS.test(form.filename))
      throw DomainError.invalid('Only .csv, .vcf, .jpg, .jpeg, .png and .pdf files can be imported here.');
    let answer: importV1.ImportContactsNowResponse;
    try {
      answer = await client.call(
        'ImportContactsNow',
        {
          filename: form.filename,
          content: form.content,
          sourceUid: form.fields.source_uid ?? '',
          fieldMappings: form.fields.field_mappings ?? '',
          dryRun,
        },
        callerContext(res),
        { timeoutMs: IMPORT_DEADLINE_MS },
      );
    } catch (error) {
      // The import service's "cannot read this file": a 422 with the spec's {detail}.
      if (isDomainError(error) && error.kind === 'validation_failed' && !error.fields) {
        res.status(422).json({ detail: error.message });
        return;
      }
      throw error;
    }
    res.json({
      created: dryRun ? answer.created.map(wouldBe) : await createdItems(records, res, answer.created),
      errors: answer.errors.map((e) => ({ row: e.row, message: e.message })),
      duplicates: answer.duplicates.map((d) => ({ row: d.row, email: d.email, existingContactId: nullIfEmpty(d.existingContactId) })),
      dryRun,
    });
  });
}

const listItem = answerSchema(contactKind.answer, 'listed');

/** What a dry run answers: a list item whose `id`, `createdAt` and `updatedAt` are null (nothing was created). */
const NOT_YET_CREATED = ['id', 'createdAt', 'updatedAt'];
const createdItem = {
  ...listItem,
  properties: Object.fromEntries(
    Object.entries(listItem.properties as Record<string, Record<string, unknown>>).map(([name, schema]) => [
      name,
      NOT_YET_CREATED.includes(name) ? { anyOf: [schema, { type: 'null' }], description: 'Null in a dry run.' } : schema,
    ]),
  ),
};

/** The operation with its 422 as the `{detail}` this route answers, not the field-error shape. */
function withDetail422(op: Record<string, unknown>): Record<string, unknown> {
  const responses = op.responses as Record<string, unknown>;
  const detail422 = {
    description: 'The file cannot be read.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return { ...op, responses: { ...responses, 422: detail422 } };
}

/** The OpenAPI part of {@link contactImportNowRouter}. */
export function contactImportNowPaths(): OpenApiPaths {
  return {
    '/api/contacts/import/': {
      post: importNowOperation(),
    },
  };
}

/** POST /api/contacts/import/: the operation, with its multipart body. */
function importNowOperation(): OpenApiOperation {
  return {
    ...withDetail422(
      operation({
        operationId: 'importContactsNow',
        summary: 'Import a small CSV, a vCard file, a business-card photo or a PDF at once',
        description:
          'multipart/form-data: `file` (required, at most 5 MB): `.csv` (at most 500 data rows, read exactly as the asynchronous import reads it: header spellings, `field_mappings`, UTF-8 else windows-1252, duplicate rules), `.vcf` (vCard 2.1, 3.0 or 4.0, one or many cards; N or FN, EMAIL, TEL, TITLE, NOTE; ORG goes into notes as `Company: …`), `.jpg`/`.jpeg`/`.png` (a business card: text recognition, then name, email, phone, title and company pulled out of the text; at most 16,000,000 pixels), `.pdf` (at most 20 pages: its text, then the same; a page listing several contacts gives one per line holding an email). `source_uid` and `field_mappings` as for the asynchronous import. `row` counts CSV data rows or vCards from 1; for an image or a PDF it is 1. Rows that cannot become a contact (no email, say) are in `errors`; rows whose email a contact already has, or an earlier row has, are in `duplicates`; neither is created. With `dryRun=true` nothing is created and `created` holds what would be, with `id`, `createdAt` and `updatedAt` null. Over 500 CSV rows or over 5 MB: 413 (use `POST /api/crm/contacts/import/start/` for large CSV files); over 500 contacts from a vCard file or a PDF: 413; text recognition or file reading busy, or too many imports in flight: 503 with `Retry-After`; another file type, no file part, two files, bad `field_mappings` or an unknown `source_uid`: 400; a file that cannot be read (malformed, no email column, an image too large to decode, too many pages, not read within 30 s): 422 `{detail}`. Nothing is created when the answer is 4xx.',
        tags: ['import'],
        authenticated: true,
        parameters: [
          {
            name: 'dryRun',
            in: 'query',
            required: false,
            description: '`true`: answer what would be created, create nothing.',
            schema: { type: 'boolean', default: false },
          },
        ],
        responses: {
          200: {
            description: 'What the file gave.',
            schema: {
              type: 'object',
              required: ['created', 'errors', 'duplicates', 'dryRun'],
              properties: {
                created: {
                  type: 'array',
                  items: createdItem,
                  description: 'Contact list items, in row order (in a dry run with id, createdAt and updatedAt null).',
                },
                errors: { type: 'array', items: ROW_ERROR_ITEM },
                duplicates: { type: 'array', items: DUPLICATE_ITEM },
                dryRun: { type: 'boolean' },
              },
            },
          },
        },
        errors: [400, 413, 422],
      }),
    ),
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: { type: 'string', format: 'binary' },
              source_uid: { type: 'string' },
              field_mappings: { type: 'string', description: 'JSON object: CSV header → contact field' },
            },
          },
        },
      },
    },
  };
}
