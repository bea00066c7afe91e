import { resolvePlan } from './plans';

describe('plans', () => {
  it.each([
    ['starter', 100],
    ['growth', 300],
    ['business', 600],
  ])('gives %s %i requests a minute', (plan, limit) => {
    expect(resolvePlan(plan)).toEqual({ plan, rateLimitPerMinute: limit });
  });

  it('gives enterprise its own number', () => {
    expect(resolvePlan('enterprise', 5000)).toEqual({ plan: 'enterprise', rateLimitPerMinute: 5000 });
  });

  it.each([undefined, 0, -5, 1.5])('refuses enterprise without a positive whole limit (%p)', (limit) => {
    expect(() => resolvePlan('enterprise', limit)).toThrow(
      expect.objectContaining({ kind: 'validation_failed', fields: { rateLimitPerMinute: [expect.any(String)] } }),
    );
  });

  it('refuses a custom limit on a fixed plan', () => {
    expect(() => resolvePlan('growth', 1000)).toThrow(expect.objectContaining({ fields: { rateLimitPerMinute: [expect.any(String)] } }));
  });

  it('refuses an unknown plan', () => {
    expect(() => resolvePlan('platinum')).toThrow(expect.objectContaining({ fields: { plan: [expect.any(String)] } }));
  });
});
