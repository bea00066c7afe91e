/**
 * How long a text is, as the API's limits count it: in characters (Unicode code points), as JSON
 * Schema's `maxLength` does, not in UTF-16 units (`string.length`), which counts an emoji twice.
 */
export function characterCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}
