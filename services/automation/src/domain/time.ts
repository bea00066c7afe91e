/** `YYYY-MM-DD` of `date` plus `days`, in UTC. */
export function dateAfterDays(date: Date, days: number): string {
  return new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
