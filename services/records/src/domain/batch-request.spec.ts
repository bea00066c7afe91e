import { DomainError } from '@crm/observability';
import { batchPlan, type BatchRequestInput, type UniqueCustomFields } from './batch-request';

const request = (over: Partial<BatchRequestInput> = {}): BatchRequestInput => ({
  kind: 'contact',
  operation: 'upsert',
  matchOn: 'email',
  atomic: false,
  recordCount: 1,
  ...over,
});

function refusal(input: BatchRequestInput, custom?: UniqueCustomFields): Record<string, string[]> {
  try {
    batchPlan(input, custom);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation_failed') return error.fields!;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('a batch request as a whole', () => {
  it('matches an update on id unless told otherwise, and a create on nothing', () => {
    expect(batchPlan(request({ operation: 'update', matchOn: '' })).match).toEqual({ field: 'id' });
    expect(batchPlan(request({ operation: 'create', matchOn: 'email' })).match).toBeNull();
    expect(batchPlan(request({ kind: 'lead' })).match).toEqual({ field: 'email' });
  });

  it.each([
    [{ recordCount: 0 }, 'records'],
    [{ recordCount: 1001 }, 'records'],
    [{ operation: 'merge' }, 'operation'],
    [{ operation: '' }, 'operation'],
    [{ matchOn: 'phone' }, 'matchOn'],
    [{ matchOn: '' }, 'matchOn'],
    [{ kind: 'account' as const }, 'matchOn'],
    [{ kind: 'opportunity' as const, operation: 'update' }, 'matchOn'],
    [{ matchOn: 'customFields.erpId' }, 'matchOn'],
  ])('refuses %j on %s', (over, field) => {
    expect(Object.keys(refusal(request(over)))).toEqual([field]);
  });

  it('takes 1,000 records', () => {
    expect(batchPlan(request({ recordCount: 1000 })).operation).toBe('upsert');
  });

  it('matches on a unique custom field once the kind has one', () => {
    const custom: UniqueCustomFields = (kind) => new Set(kind === 'account' ? ['erpId'] : []);
    expect(batchPlan(request({ kind: 'account', matchOn: 'customFields.erpId' }), custom).match).toEqual({
      field: 'customField',
      key: 'erpId',
    });
    expect(Object.keys(refusal(request({ kind: 'contact', matchOn: 'customFields.erpId' }), custom))).toEqual(['matchOn']);
  });
});
