/**
 * About how many characters a value takes as JSON, counted without serializing it: each string's
 * length and quotes (escapes aside), each key's, and 8 for any other value. For bounding what goes
 * into one document or one message, not for an exact size.
 */
export function jsonLengthEstimate(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + jsonLengthEstimate(item) + 1, 2);
  if (value && typeof value === 'object') {
    return Object.entries(value).reduce((n, [key, inner]) => n + key.length + 4 + jsonLengthEstimate(inner), 2);
  }
  return 8;
}
