// CPU time per process over a measured window, from /proc (Linux): what each part of the path costs
// per request, which stays meaningful when the machine is noisy and throughput is not.
'use strict';
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');

const TICKS_PER_SECOND = 100;

function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The shared Redis server's pid, when redis-cli can tell (its CPU is part of the rate-limited path). */
function redisPid() {
  try {
    const info = execFileSync('redis-cli', ['info', 'server'], { encoding: 'utf8', timeout: 2000 });
    return Number(/process_id:(\d+)/.exec(info)?.[1]) || undefined;
  } catch {
    return undefined;
  }
}

/** The cluster's processes by name, with this one (the load generator) and Redis. */
function clusterPids(cluster) {
  const pids = { loadGenerator: process.pid };
  for (const [name, proc] of cluster.processes) if (proc.child?.pid) pids[name] = proc.child.pid;
  const redis = redisPid();
  if (redis) pids.redis = redis;
  return pids;
}

/** Starts a window over the named processes; `stop(requests)` gives the CPU ms each spent per request (idle ones left out). */
function cpuWindow(pids) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  return {
    stop(requests) {
      const perRequest = {};
      for (const [name, pid] of Object.entries(pids)) {
        const after = cpuMs(pid);
        if (after === undefined || before[name] === undefined || after === before[name]) continue;
        perRequest[name] = Math.round(((after - before[name]) / requests) * 1000) / 1000;
      }
      return perRequest;
    },
  };
}

module.exports = { clusterPids, cpuWindow };
