import fs from 'node:fs';

export interface ListeningSocket {
  address: string;
  port: number;
}

/** `0100007F` (little-endian IPv4 in /proc/net/tcp) or a 32-digit IPv6 address, made readable. */
function readableAddress(hex: string): string {
  if (hex.length === 8)
    return hex
      .match(/../g)!
      .reverse()
      .map((b) => parseInt(b, 16))
      .join('.');
  if (/^0+$/.test(hex)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  return hex;
}

/**
 * The TCP ports a process listens on, read from /proc (Linux): its socket inodes from
 * /proc/<pid>/fd, matched against the LISTEN rows of /proc/net/tcp and tcp6.
 */
export function listeningSockets(pid: number): ListeningSocket[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed while we looked
    }
  }
  const found: ListeningSocket[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of fs.readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
      const cells = row.trim().split(/\s+/);
      if (cells[3] !== '0A' || !inodes.has(cells[9]!)) continue; // 0A: LISTEN
      const [address, port] = cells[1]!.split(':');
      found.push({ address: readableAddress(address!), port: parseInt(port!, 16) });
    }
  }
  return found.sort((a, b) => a.port - b.port);
}
