/**
 * The change feed's cursor: a position (every envelope numbered up to `seq` has been read) signed
 * for one workspace with the install's feed key, so a cursor this server did not make, or made for
 * another workspace, is refused instead of read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const PREFIX = 'f1';

function mac(key: string, workspaceId: string, body: string): string {
  return createHmac('sha256', key).update(`${workspaceId}\u0000${body}`).digest('base64url').slice(0, 27);
}

export function encodeFeedCursor(key: string, workspaceId: string, seq: number): string {
  const body = `${PREFIX}.${seq}`;
  return Buffer.from(`${body}.${mac(key, workspaceId, body)}`).toString('base64url');
}

/** The position a cursor names, or null when it is not one this install made for this workspace. */
export function decodeFeedCursor(key: string, workspaceId: string, cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const match = /^(f1\.(\d{1,15}))\.([A-Za-z0-9_-]{27})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) return null;
  const expected = Buffer.from(mac(key, workspaceId, match[1]!));
  const given = Buffer.from(match[3]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return Number(match[2]);
}
