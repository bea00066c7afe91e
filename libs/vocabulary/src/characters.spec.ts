import { characterCount } from './characters';

describe('characterCount', () => {
  it('counts code points, as JSON Schema maxLength does: an emoji is one character, not two UTF-16 units', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('Ada')).toBe(3);
    expect(characterCount('😀'.repeat(101))).toBe(101);
    expect('😀'.repeat(101).length).toBe(202);
    expect(characterCount('é漢😀')).toBe([...'é漢😀'].length);
  });

  it('counts a lone surrogate as one character', () => {
    expect(characterCount('\ud83d')).toBe(1);
    expect(characterCount('a\udc00b')).toBe(3);
  });
});
