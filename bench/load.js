'use strict';
const autocannon = require('autocannon');

/** Runs autocannon for `seconds` against one URL and returns requests/s and latency percentiles (ms). */
function load({ url, headers = {}, seconds = 10, connections = 32, pipelining = 1, method = 'GET', body }) {
  return new Promise((resolve, reject) => {
    const options = { url, headers, method, body, duration: seconds, connections, pipelining, tlsOptions: { rejectUnauthorized: false } };
    autocannon(options, (error, result) => {
      if (error) return reject(error);
      const non2xx = result.non2xx + result.errors + result.timeouts;
      resolve({
        requestsPerSecond: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        total: result.requests.total,
        failed: non2xx,
      });
    });
  });
}

/** Median and 99th percentile of `iterations` sequential runs of an async function, in ms. */
async function timeSequential(iterations, fn) {
  const samples = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)], p99: samples[Math.floor(samples.length * 0.99)] };
}

/**
 * Median, 99th percentile and worst of `iterations` reads, each timed right after an untimed
 * write (`write(i)`) has landed: what a read costs when nothing it could reuse is left.
 */
async function timeAfterWrites(iterations, write, read) {
  const samples = [];
  for (let i = 0; i < iterations; i += 1) {
    await write(i);
    const start = process.hrtime.bigint();
    await read();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (share) => samples[Math.min(samples.length - 1, Math.floor(samples.length * share))];
  return { p50: at(0.5), p90: at(0.9), p95: at(0.95), p99: at(0.99), max: samples[samples.length - 1], samples: iterations };
}

module.exports = { load, timeAfterWrites, timeSequential };
