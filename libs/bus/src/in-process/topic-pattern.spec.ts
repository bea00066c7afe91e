import { topicMatches } from './topic-pattern';

describe('topic patterns', () => {
  it.each([
    ['records.lead_created.v1', 'records.lead_created.v1'],
    ['records.*.v1', 'records.lead_created.v1'],
    ['records.#', 'records.lead_created.v1'],
    ['records.#', 'records'],
    ['#', 'import.chunk.v1'],
    ['#.v1', 'import.chunk.v1'],
    ['records.#.v1', 'records.v1'],
    ['*.*.v1', 'import.chunk.v1'],
  ])('%s matches %s', (pattern, routingKey) => {
    expect(topicMatches(pattern, routingKey)).toBe(true);
  });

  it.each([
    ['records.*', 'records.lead_created.v1'],
    ['records.*.v1', 'records.v1'],
    ['records.#', 'import.chunk.v1'],
    ['*.v1', 'v1'],
    ['records.lead_created.v1', 'records.lead_created.v2'],
  ])('%s does not match %s', (pattern, routingKey) => {
    expect(topicMatches(pattern, routingKey)).toBe(false);
  });
});
