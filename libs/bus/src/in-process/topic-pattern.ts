/** AMQP topic matching: words split on `.`, `*` is exactly one word, `#` is zero or more. */
export function topicMatches(pattern: string, routingKey: string): boolean {
  return wordsMatch(pattern.split('.'), 0, routingKey.split('.'), 0);
}

function wordsMatch(pattern: string[], p: number, key: string[], k: number): boolean {
  if (p === pattern.length) return k === key.length;
  const word = pattern[p];
  if (word === '#') {
    for (let skip = k; skip <= key.length; skip++) {
      if (wordsMatch(pattern, p + 1, key, skip)) return true;
    }
    return false;
  }
  if (k === key.length) return false;
  return (word === '*' || word === key[k]) && wordsMatch(pattern, p + 1, key, k + 1);
}
