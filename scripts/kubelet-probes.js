// Probes one container as the kubelet does, from the probes the chart renders (scripts/rendered-pods.js):
// the startup probe until it passes (failureThreshold failures in a row: the container is
// restarted), then readiness (whether its Service sends it traffic) and liveness (failureThreshold
// failures in a row: the container is stopped with the pod's termination grace and started again,
// and its restart count goes up) every periodSeconds, each check bounded by timeoutSeconds.
// httpGet (any status 200-399; HTTPS without verifying the certificate, as the kubelet does), grpc
// (the standard health service, plaintext) and tcpSocket are understood.
// A container stopped by someone else (a test) is left alone; once it runs again, probing starts
// over from the startup probe. A crash is not restarted here: the suites count unexpected exits.
'use strict';
const https = require('node:https');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function httpCheck(probe, host, port) {
  const client = probe.scheme === 'HTTPS' ? https : http;
  return new Promise((resolve) => {
    const req = client.get(
      { host, port, path: probe.path ?? '/', rejectUnauthorized: false, timeout: probe.timeoutSeconds * 1000, agent: false },
      (res) => {
        res.resume();
        resolve(res.statusCode >= 200 && res.statusCode < 400);
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

function tcpCheck(probe, host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(probe.timeoutSeconds * 1000, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

function grpcCheck(probe, host, port) {
  const { checkHealth } = require(path.join(ROOT, 'libs/grpc/dist'));
  return checkHealth(`${host}:${port}`, probe.service ?? '', probe.timeoutSeconds * 1000);
}

const CHECKS = { httpGet: httpCheck, tcpSocket: tcpCheck, grpc: grpcCheck };

class PodProber {
  /**
   * @param {object} options
   * @param {import('./rendered-pods').RenderedPod} options.pod
   * @param {{ running: boolean, exits: number, stop(signal: string, graceMs: number): Promise<void>, start(): void, name: string }} options.proc
   * @param {string} options.host the address the container listens on
   * @param {(port: string | number) => number} options.portOf the host port of a container port (name or number)
   * @param {(ready: boolean) => void} [options.onReadiness]
   */
  constructor({ pod, proc, host, portOf, onReadiness = () => {} }) {
    Object.assign(this, { pod, proc, host, portOf, onReadiness });
    this.ready = false;
    /** Restarts this prober made (the kubelet's restartCount for liveness and startup failures). */
    this.restarts = 0;
    /** What happened, newest last: `liveness failed 3 times: restarted`. */
    this.events = [];
    this.stopped = false;
    this.waiters = [];
  }

  start() {
    this.loop = this.run();
  }

  async stop() {
    this.stopped = true;
    await this.loop;
  }

  /** Ready in the container's current run (a run stopped and started since is not ready until probed again). */
  get isReady() {
    return this.ready && this.readyRun === this.proc.exits && this.proc.running;
  }

  /** Resolves once the readiness probe passes in the current run, or fails when `timeoutMs` passes. */
  waitReady(timeoutMs) {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== resolve);
        reject(
          new Error(`${this.proc.name} was not ready within ${timeoutMs} ms (${this.events.slice(-3).join('; ') || 'no probe passed'})`),
        );
      }, timeoutMs);
      this.waiters.push({ resolve: () => (clearTimeout(timer), resolve()), reject: (e) => (clearTimeout(timer), reject(e)) });
    });
  }

  setReady(ready) {
    if (ready) this.readyRun = this.proc.exits;
    if (ready === this.ready) {
      if (ready) for (const waiter of this.waiters.splice(0)) waiter.resolve();
      return;
    }
    this.ready = ready;
    this.onReadiness(ready);
    if (ready) for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }

  check(probe) {
    return CHECKS[probe.type](probe, this.host, this.portOf(probe.port)).catch(() => false);
  }

  /** The kubelet's restart: the pod's termination grace, then the same container again. */
  async restart(why) {
    this.events.push(`${why}: restarted`);
    this.restarts += 1;
    this.setReady(false);
    await this.proc.stop('SIGTERM', this.pod.terminationGraceMs);
    this.proc.start();
  }

  async run() {
    while (!this.stopped) {
      if (!this.proc.running) {
        this.setReady(false);
        await sleep(200);
        continue;
      }
      const run = this.proc.exits;
      const stillThisRun = () => !this.stopped && this.proc.running && this.proc.exits === run;
      const { startup, readiness, liveness } = this.pod.probes;
      // Startup: nothing else is probed until it passes.
      if (startup) {
        await sleep(startup.initialDelaySeconds * 1000);
        let failures = 0;
        while (stillThisRun() && !(await this.check(startup))) {
          failures += 1;
          if (failures >= startup.failureThreshold) break;
          await sleep(startup.periodSeconds * 1000);
        }
        if (!stillThisRun()) continue;
        if (failures >= startup.failureThreshold) {
          await this.restart(`startup failed ${failures} times`);
          continue;
        }
      }
      await Promise.all([
        this.periodic(readiness, stillThisRun, (ok, streak) => {
          if (ok && streak.passes >= readiness.successThreshold) this.setReady(true);
          if (!ok && streak.failures >= readiness.failureThreshold) this.setReady(false);
        }),
        this.periodic(liveness, stillThisRun, async (ok, streak) => {
          if (!ok && streak.failures >= liveness.failureThreshold) {
            await this.restart(`liveness failed ${streak.failures} times`);
            return 'stop';
          }
        }),
      ]);
      if (!readiness) this.setReady(this.proc.running);
    }
    this.setReady(false);
  }

  /** One probe every periodSeconds for as long as this run of the container lasts. */
  async periodic(probe, stillThisRun, onResult) {
    if (!probe) return;
    if (!this.pod.probes.startup) await sleep(probe.initialDelaySeconds * 1000);
    const streak = { passes: 0, failures: 0 };
    while (stillThisRun()) {
      const started = Date.now();
      const ok = await this.check(probe);
      if (!stillThisRun()) return;
      streak.passes = ok ? streak.passes + 1 : 0;
      streak.failures = ok ? 0 : streak.failures + 1;
      if ((await onResult(ok, streak)) === 'stop') return;
      await sleep(Math.max(0, probe.periodSeconds * 1000 - (Date.now() - started)));
    }
  }
}

module.exports = { PodProber };
