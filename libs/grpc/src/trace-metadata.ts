/** gRPC metadata as a carrier of the W3C trace context (`traceparent`, `tracestate`), for libs/telemetry's trace carrier. */
import type * as grpc from '@grpc/grpc-js';
import type { TextMapGetter, TextMapSetter } from '@opentelemetry/api';

export const metadataSetter: TextMapSetter<grpc.Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

export const metadataGetter: TextMapGetter<grpc.Metadata> = {
  get: (metadata, key) => {
    const [value] = metadata.get(key);
    return typeof value === 'string' ? value : undefined;
  },
  keys: (metadata) => Object.keys(metadata.getMap()),
};
