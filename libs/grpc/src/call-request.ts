/**
 * A message as a caller sends it: every field may be left out, in nested messages too, since proto3
 * encodes a field left out as its default (empty, zero, unset). Answers keep the generated types.
 */
export type MessageInput<T> = T extends Uint8Array
  ? T
  : T extends readonly (infer Item)[]
    ? MessageInput<Item>[]
    : T extends object
      ? { [Field in keyof T]?: MessageInput<T[Field]> }
      : T;

/** The request of rpc `K` of service `M` (a `…ServiceMethods` interface), as a caller sends it. */
export type CallRequest<M, K extends keyof M> = M[K] extends { request: infer Request } ? MessageInput<Request> : never;
