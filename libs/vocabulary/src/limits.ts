/**
 * The limits decided where the spec is silent, read by every process that checks them: the gateway
 * (its schemas and the OpenAPI document), records (the last word), import (its early row checks)
 * and auth.
 */

/** Record fields, in characters (tags: count and characters per tag). */
export const FIELD_LIMITS = {
  name: 200,
  shortText: 200,
  longText: 10_000,
  tagCount: 50,
  tagLength: 50,
  email: 254,
  url: 2_000,
  /** A client's own id of a record (`externalId`), unique per workspace and kind. */
  externalId: 255,
} as const;

/** People and keys in auth, in characters. */
export const ACCOUNT_LIMITS = {
  workspaceName: 200,
  personName: 150,
  apiKeyName: 100,
  passwordMin: 10,
  passwordMax: 256,
} as const;

/** Every list: `limit` defaults to 20 and is served as at most 100; offsets travel as int32. */
export const PAGING = {
  defaultLimit: 20,
  maxLimit: 100,
  maxOffset: 2_147_483_647,
} as const;

/** Longer list searches are refused, keeping a substring scan bounded. */
export const MAX_SEARCH_LENGTH = 200;
