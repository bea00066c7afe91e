import { automationCorrelationId, causeOf, loopRefusal, MAX_CHAIN_DEPTH } from './loop-guard';

describe('loop protection', () => {
  it("reads a person's change as depth 0 with no rules behind it", () => {
    expect(causeOf('9b2f0c1e-request-id')).toEqual({ depth: 0, ruleIds: [] });
  });

  it('never lets a rule re-enroll a record through its own actions', () => {
    const correlationId = automationCorrelationId(causeOf('req-1'), 'rul_a', 'log_1');
    expect(loopRefusal(causeOf(correlationId), 'rul_a')).toMatch(/never re-triggers itself/);
    expect(loopRefusal(causeOf(correlationId), 'rul_b')).toBeNull();
  });

  it('stops a chain of rules feeding each other after the maximum depth', () => {
    let correlationId = 'req-1';
    for (let i = 0; i < MAX_CHAIN_DEPTH; i++) correlationId = automationCorrelationId(causeOf(correlationId), `rul_${i}`, `log_${i}`);
    expect(causeOf(correlationId).depth).toBe(MAX_CHAIN_DEPTH);
    expect(loopRefusal(causeOf(correlationId), 'rul_other')).toMatch(/chains stop/);
  });
});
