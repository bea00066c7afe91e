/**
 * Searches of a text index's values table (see sqlite-text-index.ts): a scan of one workspace's
 * lowered values, for needles without a trigram and for counting needles most values hold.
 *
 * A value is tested with GLOB on a pattern of the lowered needle (its `*`, `?` and `[` each
 * bracketed, so it is matched literally): the same test as `instr(value, lower(needle)) > 0`, at
 * about 7 ms for 100,000 contacts' values against 11 for instr. GLOB stops at a NUL character,
 * though, so values holding one are kept apart (under `-1 - n`) and tested with instr, and a
 * needle holding one can only be in those.
 */
import { WORKSPACE_NUMBER } from './sqlite-text-index';

type SqlValue = string | number | null;

interface Scan {
  sql: string;
  params: SqlValue[];
}

const PATTERN = `'*' || replace(replace(replace(lower(?), '[', '[[]'), '*', '[*]'), '?', '[?]') || '*'`;

/** `select` from each of the two parts of the workspace's values, restricted to those holding the needle. */
function parts(values: string, workspaceId: string, needle: string, select: string): [Scan, Scan] {
  const plain: Scan = needle.includes('\0')
    ? { sql: `SELECT ${select} FROM ${values} WHERE 0`, params: [] }
    : { sql: `SELECT ${select} FROM ${values} WHERE n = ${WORKSPACE_NUMBER} AND value GLOB ${PATTERN}`, params: [workspaceId, needle] };
  const withNul: Scan = {
    sql: `SELECT ${select} FROM ${values} WHERE n = -1 - ${WORKSPACE_NUMBER} AND instr(value, lower(?)) > 0`,
    params: [workspaceId, needle],
  };
  return [plain, withNul];
}

/** How many of the workspace's values hold the needle. */
export function valuesCountToSql(values: string, workspaceId: string, needle: string): Scan {
  const [plain, withNul] = parts(values, workspaceId, needle, 'count(*)');
  return { sql: `SELECT (${plain.sql}) + (${withNul.sql})`, params: [...plain.params, ...withNul.params] };
}

/** The rowids of up to `cap` of the workspace's values that hold the needle. */
export function valuesRowidsToSql(values: string, workspaceId: string, needle: string, cap: number): Scan {
  const [plain, withNul] = parts(values, workspaceId, needle, 'row_id');
  return { sql: `${plain.sql} UNION ALL ${withNul.sql} LIMIT ?`, params: [...plain.params, ...withNul.params, cap] };
}

/**
 * Whether at least `held / of` of the first `sample` of the workspace's values (those without a
 * NUL) hold the needle: an SQL expression, with its parameters.
 */
export function valuesShareToSql(values: string, workspaceId: string, needle: string, sample: number, held: number, of: number): Scan {
  return {
    sql:
      `(SELECT sum(value GLOB ${PATTERN}) * ${of} >= count(*) * ${held}` +
      ` FROM (SELECT value FROM ${values} WHERE n = ${WORKSPACE_NUMBER} LIMIT ${sample}))`,
    params: [needle, workspaceId],
  };
}
