/**
 * A read by primary key (a get, or a getMany of a few ids, in or across workspaces) costs SQLite a
 * few page reads: about 20 µs on the event loop's own connection. Sent to a read worker it costs
 * more than that in the message to the worker and back, and it can never hold the loop, which is
 * what the workers are for. So these reads stay on the connection they are asked on; every other
 * read goes to the pool. Measured (`npm run bench -- --only gateway --target npm-start`, alternating
 * builds, two rounds each): `GET /api/contacts/{id}/` from a median 1.99 to 1.78 CPU ms per request.
 */
import type { Query } from '../port';

/**
 * At most this many ids make a lookup: a page's references (a list's accounts or owners) fit, and 50
 * primary-key probes still take about a millisecond. A chosen bound, not a measured optimum.
 */
export const KEY_LOOKUP_MAX_IDS = 50;

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
