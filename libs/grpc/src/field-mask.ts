/**
 * google.protobuf.FieldMask and proto3 `optional` as the services use them: a write carries the
 * fields its client sent as a mask (paths are the proto's snake_case names; code speaks the
 * camelCase names proto-loader gives), and a decoded message's set optional fields are its own
 * keys, minus the `_<field>` markers proto-loader adds for them with `oneofs: true`.
 */
export interface FieldMask {
  paths: string[];
}

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const camelCase = (path: string): string => path.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/** The mask naming these camelCase fields. */
export function fieldMask(fields: Iterable<string>): FieldMask {
  return { paths: [...fields].map(snakeCase) };
}

/** The camelCase fields a mask names; undefined when the mask is unset. */
export function maskedFields(mask: FieldMask | null | undefined): string[] | undefined {
  return mask ? mask.paths.map(camelCase) : undefined;
}

/** The fields a decoded message carries: set (not undefined), without proto-loader's `_<field>` markers. */
export function setFields(message: object): string[] {
  return Object.entries(message)
    .filter(([key, value]) => !key.startsWith('_') && value !== undefined)
    .map(([key]) => key);
}
