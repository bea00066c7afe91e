// One replica as a podman container on the host's network, with the interface the cross suites
// use on a local-cluster process: start, stop(signal), running, tail, env. The container stays
// after it stops, so start() again runs the same container (same name, environment and mounts),
// as Kubernetes restarts a pod's container. With `memoryMb` it runs under that memory limit and no
// swap, as a pod's container does under its limit. An exit nobody asked for (a crash, or the
// kernel's OOM kill: 137) is kept in `unexpectedExits`; podman's OOMKilled flag stays false here.
'use strict';
const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const { promisify } = require('node:util');

const run = promisify(execFile);

class ContainerProcess {
  /**
   * `security`: the pod's security context as podman flags take it ({readOnlyRoot, user: 'uid:gid',
   * dropCapabilities, noNewPrivileges}); `tmpfs`: paths mounted as memory-backed empty folders.
   */
  constructor({ name, container, image, args = [], env, mounts = [], tmpfs = [], labels = {}, logFile, memoryMb, cpus, security = {} }) {
    Object.assign(this, { name, container, image, args, env, mounts, tmpfs, labels, logFile, memoryMb, cpus, security });
    this.child = undefined;
    this.created = false;
    this.exits = 0;
    /** Exit codes of runs that ended without stop() asking (a crash, an OOM kill). */
    this.unexpectedExits = [];
  }

  /** `podman run` the first time, `podman start` after; attached, so the container's output goes to the log file. */
  start() {
    const log = fs.openSync(this.logFile, 'a');
    const argv = this.created ? ['start', '--attach', this.container] : this.runArgs();
    this.created = true;
    this.terminating = false;
    this.child = spawn('podman', argv, { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.exited.then(({ code }) => {
      this.exits += 1;
      if (!this.terminating) this.unexpectedExits.push(code);
    });
  }

  runArgs() {
    const env = Object.entries(this.env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
    const mounts = this.mounts.flatMap(({ host, container, readOnly }) => ['--volume', `${host}:${container}${readOnly ? ':ro' : ''}`]);
    const labels = Object.entries(this.labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]);
    const memory = this.memoryMb ? [`--memory=${this.memoryMb}m`, `--memory-swap=${this.memoryMb}m`] : [];
    const { readOnlyRoot, user, dropCapabilities = [], noNewPrivileges } = this.security;
    return [
      'run',
      '--name',
      this.container,
      '--network=host',
      ...(readOnlyRoot ? ['--read-only'] : []),
      ...this.tmpfs.flatMap((dir) => ['--tmpfs', dir]),
      ...(user ? ['--user', user] : []),
      ...dropCapabilities.map((capability) => `--cap-drop=${capability}`),
      ...(noNewPrivileges ? ['--security-opt=no-new-privileges'] : []),
      '--sig-proxy=false',
      ...memory,
      ...(this.cpus ? [`--cpus=${this.cpus}`] : []),
      ...labels,
      ...mounts,
      ...env,
      this.image,
      ...this.args,
    ];
  }

  get running() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Running and not told to stop: what a Kubernetes Service routes new connections to. A pod leaves
   * its Service's endpoints as soon as its termination begins, while it drains, not when it exits.
   */
  get serving() {
    return this.running && !this.terminating;
  }

  /**
   * SIGTERM is `podman stop` (SIGKILL once `graceMs` is over, as the kubelet does at the end of a
   * pod's grace period); any other signal is `podman kill --signal`. Resolves once the container exited.
   */
  async stop(signal = 'SIGTERM', graceMs = 10_000) {
    if (!this.running) return;
    this.terminating = true;
    if (signal === 'SIGTERM') await run('podman', ['stop', '--time', String(Math.ceil(graceMs / 1000)), this.container]);
    else await run('podman', ['kill', '--signal', signal, this.container]);
    await this.exited;
  }

  /** The container's exit code, as podman recorded it. */
  async exitCode() {
    const { stdout } = await run('podman', ['inspect', '--format', '{{.State.ExitCode}}', this.container]);
    return Number(stdout.trim());
  }

  /** The memory limit podman applied, in MB (0: none). */
  async memoryLimitMb() {
    const { stdout } = await run('podman', ['inspect', '--format', '{{.HostConfig.Memory}}', this.container]);
    return Number(stdout.trim()) / 1048576;
  }

  tail(lines = 30) {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  async remove() {
    await run('podman', ['rm', '--force', '--time', '0', this.container]).catch(() => undefined);
    if (this.child && this.running) await this.exited;
  }
}

module.exports = { ContainerProcess };
