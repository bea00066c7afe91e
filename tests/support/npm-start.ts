import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** The processes of a process group, from /proc (Linux). */
function groupMembers(groupId: number): { pid: number; command: string }[] {
  const members: { pid: number; command: string }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: comm may hold spaces, so read after its closing parenthesis.
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (group === groupId)
        members.push({ pid: Number(entry), command: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // the process ended while we looked
    }
  }
  return members;
}

export interface RunningNpmStart {
  /** The npm process; its process group holds npm, its shell and the CRM's node process. */
  process: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** The pid of the node process that runs scripts/start.js (npm's grandchild). */
  nodePid(): number;
  stop(): Promise<void>;
}

/** Runs `npm start` as a user does, in `cwd`, and resolves once it prints its URL. */
export async function npmStart(cwd: string, env: NodeJS.ProcessEnv, port: number): Promise<RunningNpmStart> {
  const child = spawn('npm', ['start'], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  const running = () => child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGINT'); // the whole group, as Ctrl-C in a terminal does
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (running()) process.kill(-child.pid!, 'SIGKILL');
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not print its URL in 150 s:\n${printed}`)), 150_000);
    const collect = (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes(`CRM listening on https://localhost:${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before listening:\n${printed}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    process: child,
    output: () => printed,
    nodePid: () => {
      const pid = groupMembers(child.pid!).find((member) => /^\S*node (--\S+ )*scripts\/start\.js/.test(member.command))?.pid;
      if (!pid) throw new Error('no node process running scripts/start.js under npm start');
      return pid;
    },
    stop,
  };
}
