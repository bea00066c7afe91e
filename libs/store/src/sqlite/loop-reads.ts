/**
 * The reads that stay on the connection they are asked on instead of going to a read worker. A read
 * by primary key (a get, or a getMany of a few ids, in or across workspaces) costs SQLite a few page
 * reads: about 20 µs on the event loop's own connection. Sent to a read worker it costs more than
 * that in the message to the worker and back, and it can never hold the loop, which is what the
 * workers are for. The same holds for one workspace's documents of a collection its service keeps
 * small (`maxPerWorkspace`: a workspace's custom field definitions, read by every record view).
 * Every other read goes to the pool. Measured (`npm run bench -- --only gateway --target npm-start`,
 * alternating builds, two rounds each): keys, `GET /api/contacts/{id}/` from a median 1.99 to 1.78
 * CPU ms per request; then the definitions it reads, from 1.02-1.06 to 0.57-0.62 (1,076-1,109 to
 * 1,863-2,003 requests/s).
 */
import { isFieldCondition, type CollectionDefinition, type Condition, type Query } from '../port';

/**
 * At most this many ids make a lookup: a page's references (a list's accounts or owners) fit, and 50
 * primary-key probes still take about a millisecond. A chosen bound, not a measured optimum.
 */
export const KEY_LOOKUP_MAX_IDS = 50;

/**
 * A collection whose workspace holds at most this many documents is read on the loop: 400 (custom
 * field definitions, 100 for each of 4 kinds) parse in about 2 ms at worst, a workspace with a few
 * fields in microseconds. A chosen bound, like KEY_LOOKUP_MAX_IDS.
 */
export const SMALL_READ_MAX_ROWS = 400;

/** Whether the read stays on the connection it is asked on (see above). */
export function readsOnLoop(collection: CollectionDefinition<any>, query: Query): boolean {
  return isKeyLookup(query) || isSmallRead(collection, query);
}

/** Whether the query names its rows by id (equal, or one of at most KEY_LOOKUP_MAX_IDS), beside only equalities on the workspace. */
export function isKeyLookup(query: Query): boolean {
  let byId = false;
  for (const condition of query.where ?? []) {
    if (!('op' in condition)) return false;
    if (condition.field === 'workspaceId' && condition.op === 'eq') continue;
    if (condition.field !== 'id') return false;
    if (condition.op === 'eq') byId = true;
    else if (condition.op === 'in' && condition.values.length <= KEY_LOOKUP_MAX_IDS) byId = true;
    else return false;
  }
  return byId;
}

/** Whether the query reads within one workspace of a collection kept at most SMALL_READ_MAX_ROWS a workspace. */
export function isSmallRead(collection: CollectionDefinition<any>, query: Query): boolean {
  const most = collection.maxPerWorkspace;
  if (most === undefined || most > SMALL_READ_MAX_ROWS) return false;
  return workspaceOf(query.where ?? []) !== undefined;
}

/** The one workspace the conditions read (an equality on workspaceId), if they name one. */
export function workspaceOf(where: Condition[]): string | undefined {
  const workspace = where.find((w) => isFieldCondition(w) && w.field === 'workspaceId' && w.op === 'eq');
  const workspaceId = workspace && 'value' in workspace ? workspace.value : undefined;
  return typeof workspaceId === 'string' ? workspaceId : undefined;
}
