/** Time in the shapes the API uses: `YYYY-MM-DDThh:mm:ssZ` timestamps and `YYYY-MM-DD` dates. */
import { apiTimestamp } from '@crm/vocabulary';

export function dateOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** A real calendar date in `YYYY-MM-DD` form (2025-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * An ISO 8601 date or timestamp from a query parameter, normalised to the stored shape; null when
 * it is not one. A bare date means its first second.
 */
export function parseIsoTimestamp(value: string): string | null {
  if (isCalendarDate(value)) return `${value}T00:00:00Z`;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(value)) return null;
  if (!isCalendarDate(value.slice(0, 10))) return null;
  // Without an offset the time is read as UTC, the API's only zone.
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? null : apiTimestamp(new Date(ms));
}

/** An ISO 8601 date, or the date part of a timestamp; null when it is neither. */
export function parseIsoDate(value: string): string | null {
  if (isCalendarDate(value)) return value;
  const normalised = parseIsoTimestamp(value);
  return normalised ? normalised.slice(0, 10) : null;
}
