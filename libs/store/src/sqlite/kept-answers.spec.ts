import { KeptAnswers } from './kept-answers';

describe('KeptAnswers', () => {
  it('answers a key once while its version stands', () => {
    const kept = new KeptAnswers<number>(8);
    const answer = jest.fn(() => 7);
    expect(kept.get('a', 1, answer)).toBe(7);
    expect(kept.get('a', 1, answer)).toBe(7);
    expect(answer).toHaveBeenCalledTimes(1);
    expect(kept.get('b', 1, () => 8)).toBe(8);
  });

  it('answers anew once the version has moved', () => {
    const kept = new KeptAnswers<number>(8);
    kept.get('a', 1, () => 1);
    expect(kept.get('a', 2, () => 2)).toBe(2);
    expect(kept.get('a', 2, () => -1)).toBe(2);
  });

  it('keeps at most its capacity, dropping the least recently read', () => {
    const kept = new KeptAnswers<number>(3);
    kept.get('k0', 1, () => 0);
    kept.get('k1', 1, () => 1);
    kept.get('k2', 1, () => 2);
    kept.get('k0', 1, () => -1); // read again: now the most recent
    kept.get('k3', 1, () => 3); // drops k1
    expect(kept.get('k0', 1, () => -1)).toBe(0);
    expect(kept.get('k2', 1, () => -1)).toBe(2);
    expect(kept.get('k1', 1, () => -1)).toBe(-1);
  });
});
