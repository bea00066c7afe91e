/** The API's timestamp shape: ISO 8601 in UTC to the second, `YYYY-MM-DDThh:mm:ssZ`. */
export function apiTimestamp(at: Date | number | string = new Date()): string {
  const date = at instanceof Date ? at : new Date(at);
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The current time, injected into every service's application code so tests can move it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
