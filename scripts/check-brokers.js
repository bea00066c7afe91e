#!/usr/bin/env node
// Checks that Redis and RabbitMQ answer a real handshake (an open port is not enough: a wedged
// broker accepts TCP and then hangs). Exits 0 when both answer, 1 with what failed otherwise.
'use strict';
if (process.argv.includes('--help')) {
  console.log(
    'Usage: node scripts/check-brokers.js [--timeout-ms N]\n  Connects to REDIS_URL (PING) and AMQP_URL (open a channel); defaults are the local ones.',
  );
  process.exit(0);
}
const amqp = require('amqplib');
const Redis = require('ioredis');

const timeoutArg = process.argv.indexOf('--timeout-ms');
const timeoutMs = timeoutArg > 0 ? Number(process.argv[timeoutArg + 1]) : 15_000;
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const amqpUrl = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';

const within = (name, promise) =>
  Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref()),
  ]).then(
    () => null,
    (error) => `${name}: ${error.message}`,
  );

async function main() {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  const problems = (
    await Promise.all([
      within(
        `Redis at ${redisUrl}`,
        redis.connect().then(() => redis.ping()),
      ),
      within(
        `RabbitMQ at ${amqpUrl}`,
        amqp.connect(amqpUrl).then(async (connection) => {
          await connection.createChannel();
          await connection.close();
        }),
      ),
    ])
  ).filter(Boolean);
  redis.disconnect();
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log('Redis and RabbitMQ answer');
  process.exit(0);
}
main();
