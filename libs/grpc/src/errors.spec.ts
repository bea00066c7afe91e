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

describe('a failed call, as a log reads it', () => {
  it('keeps grpc-js’s own words and the call, while the client-facing message stays generic', () => {
    const received = fromServiceError(
      { code: grpc.status.UNAVAILABLE, details: 'No connection established', metadata: new grpc.Metadata() } as grpc.ServiceError,
      'GetContact dns:///crm-records-headless:50052',
    );
    expect(received.kind).toBe('unavailable');
    expect(received.message).toBe('A backing service is unavailable; try again shortly.');
    expect(received).toMatchObject({
      grpcCode: grpc.status.UNAVAILABLE,
      grpcDetails: 'No connection established',
      call: 'GetContact dns:///crm-records-headless:50052',
    });
  });
});
