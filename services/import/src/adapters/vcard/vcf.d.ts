/** The part of the `vcf` package (no types of its own) that vcard-reader.ts uses. */
declare module 'vcf' {
  namespace vCard {
    /** A property: its name, parameters, value type, and its value (components as an array). */
    type JCardProperty = [string, Record<string, string | string[]>, string, string | string[] | null];
  }
  class vCard {
    static parse(text: string): vCard[];
    /** Called by `parse` on each card's text; replaced by vcard-reader.ts with a linear version. */
    static normalize(input: string): string;
    toJSON(): ['vcard', vCard.JCardProperty[]];
  }
  export = vCard;
}
