import * as grpc from '@grpc/grpc-js';
import { DomainError } from '@crm/observability';
import { fromServiceError, toServiceError } from './errors';

describe('field errors across gRPC', () => {
  it('carries messages with characters outside ASCII (which metadata cannot hold as they are) and reads them back', () => {
    const fields = { stage: ['"clôturé" is not a valid choice.'], name: ['workspace’s 名前'] };
    const sent = toServiceError(DomainError.validation(fields));
    const received = fromServiceError({
      ...sent,
      code: grpc.status.FAILED_PRECONDITION,
      details: 'Validation failed.',
    } as grpc.ServiceError);
    expect(received.fields).toEqual(fields);
  });
});
