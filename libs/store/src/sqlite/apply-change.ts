/**
 * Applies a validated Change to a parsed document in place, with MongoDB's update semantics
 * (`$set`, `$unset`, `$inc`) so both adapters give the same results.
 */
import { Change, StoreError } from '../port';

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function key(container: Container, segment: string, path: string): string | number {
  if (!Array.isArray(container)) return segment;
  if (!/^\d+$/.test(segment)) throw new StoreError('invalid_query', `${path} addresses an array with a non-numeric key`);
  return Number(segment);
}

function read(container: Container, k: string | number): unknown {
  return Object.prototype.hasOwnProperty.call(container, k) ? (container as Record<string | number, unknown>)[k] : undefined;
}

/** The container holding the last segment of `path`, creating objects on the way when `create` is set. */
function parentOf(
  document: Record<string, unknown>,
  path: string,
  create: boolean,
): { container: Container; last: string | number } | null {
  const segments = path.split('.');
  let container: Container = document;
  for (const segment of segments.slice(0, -1)) {
    const k = key(container, segment, path);
    let next = read(container, k);
    if (next === undefined || next === null) {
      if (!create) return null;
      next = {};
      (container as Record<string | number, unknown>)[k] = next;
    } else if (!isContainer(next)) {
      if (!create) return null;
      throw new StoreError('invalid_query', `Cannot write ${path}: ${segment} is not an object`);
    }
    container = next as Container;
  }
  const lastSegment = segments[segments.length - 1] as string;
  return { container, last: key(container, lastSegment, path) };
}

export function applyChange(document: Record<string, unknown>, change: Change<unknown>): void {
  for (const [path, value] of Object.entries(change.set ?? {})) {
    const target = parentOf(document, path, true);
    if (target) (target.container as Record<string | number, unknown>)[target.last] = structuredClone(value);
  }
  for (const path of change.unset ?? []) {
    const target = parentOf(document, path, false);
    if (!target) continue;
    if (Array.isArray(target.container)) {
      // MongoDB's $unset leaves null in an array slot rather than shifting the elements.
      if (typeof target.last === 'number' && target.last < target.container.length) target.container[target.last] = null;
    } else {
      delete target.container[target.last as string];
    }
  }
  for (const [path, amount] of Object.entries(change.inc ?? {})) {
    const target = parentOf(document, path, true);
    if (!target) continue;
    const current = read(target.container, target.last);
    if (current !== undefined && typeof current !== 'number') {
      throw new StoreError('invalid_query', `Cannot increment ${path}: it is not a number`);
    }
    (target.container as Record<string | number, unknown>)[target.last] = (current ?? 0) + amount;
  }
}
