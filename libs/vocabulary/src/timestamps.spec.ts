import { apiTimestamp } from './timestamps';

describe('the API timestamp', () => {
  it('is ISO 8601 in UTC to the second, from a date, a time in ms or ISO text', () => {
    expect(apiTimestamp(new Date('2026-11-29T08:04:05.678Z'))).toBe('2026-11-29T08:04:05Z');
    expect(apiTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 999))).toBe('2026-01-02T03:04:05Z');
    expect(apiTimestamp('2026-11-29T09:04:05.123+01:00')).toBe('2026-11-29T08:04:05Z');
    expect(apiTimestamp('2026-11-29T08:04:05Z')).toBe('2026-11-29T08:04:05Z');
    expect(apiTimestamp()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});
