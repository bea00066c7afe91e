/** Timestamps as the API shows them: ISO 8601 UTC to the second. */
import { apiTimestamp } from '@crm/vocabulary';
export function timestamp(date: Date): string {
  return apiTimestamp(date);
}

/** `YYYY-MM-DD` of `date` plus `days`, in UTC. */
export function dateAfterDays(date: Date, days: number): string {
  return new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
