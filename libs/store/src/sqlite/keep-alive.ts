/**
 * better-sqlite3 12 on Node 24 aborts the process when one of its Database or Statement objects is
 * garbage-collected, open or closed: the destructor asks for the Node environment while V8 runs
 * weak callbacks, and gets none (WiseLibs/better-sqlite3#1515; fixed in 13, which needs Node 22+).
 * So every one this process makes is held until the process exits. They are held on `process`,
 * so that a test runner discarding a module registry does not release them either.
 */
const KEY = Symbol.for('crm.store.sqlite.keptAlive');

export function keepAlive<T>(value: T): T {
  const holder = process as unknown as Record<symbol, unknown[] | undefined>;
  (holder[KEY] ??= []).push(value);
  return value;
}
