/** BatchWriteRecords ↔ the batch of record-batches.ts: each record read as a single create or update reads it. */
import type { recordsV1 } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { BatchWriteInput, BatchWriteResult } from '../application/record-batches';
import type { BatchRecordKind } from '../domain/batch-request';
import { writeInput } from './proto-mapping';

const MESSAGE_OF: Record<BatchRecordKind, keyof Pick<recordsV1.BatchRecord, 'contact' | 'lead' | 'account' | 'opportunity'>> = {
  contact: 'contact',
  lead: 'lead',
  account: 'account',
  opportunity: 'opportunity',
};

export function batchWriteInput(r: recordsV1.BatchWriteRecordsRequest): BatchWriteInput {
  if (!Object.prototype.hasOwnProperty.call(MESSAGE_OF, r.recordType))
    throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
  const kind = r.recordType as BatchRecordKind;
  return {
    kind,
    operation: r.operation,
    matchOn: r.matchOn,
    atomic: r.atomic,
    // Masked as an update: only the fields the client sent are read, for a create as for an update.
    records: r.records.map((record) => ({
      ...writeInput(record[MESSAGE_OF[kind]], record.fieldMask, record.invalidFields, 'update'),
      id: record.id,
    })),
  };
}

export function batchWriteMessage(result: BatchWriteResult): recordsV1.BatchWriteRecordsResponse {
  return {
    rolledBack: result.rolledBack,
    results: result.results.map((r) => ({
      index: r.index,
      status: r.status,
      id: r.id ?? '',
      errors: Object.entries(r.errors ?? {}).map(([field, messages]) => ({ field, messages })),
    })),
  };
}
