/**
 * Code generated once per built-in descriptor list: a function with one plain property access per
 * field, as a hand-written builder would be. A loop of keyed accesses costs about ten times as much,
 * and every created, imported and answered record pays it. Field names are checked before they are
 * written into the code (they are our own, never input).
 */
import type { BuiltInFields } from '@crm/vocabulary';

/** A descriptor list's field name, checked before it is written into generated code. */
export function fieldIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`${JSON.stringify(name)} is no field name.`);
  return name;
}

/**
 * `generate(fields)` compiled into a function of `parameters`, once per descriptor list (built-in
 * lists never change): `generate` returns the body, naming each field through fieldIdentifier.
 */
export function perFieldList<F extends (...args: never[]) => unknown>(
  parameters: string[],
  generate: (fields: BuiltInFields) => string,
): (fields: BuiltInFields) => F {
  const compiled = new WeakMap<BuiltInFields, F>();
  return (fields) => {
    let made = compiled.get(fields);
    if (!made) compiled.set(fields, (made = new Function(...parameters, generate(fields)) as F));
    return made;
  };
}
