export const DAY_MS = 24 * 60 * 60 * 1000;

/** YYYY-MM-DD of a moment, in UTC. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}
