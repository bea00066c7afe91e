/**
 * Fault injection on the cluster's RabbitMQ for reliability tests: lose the messages waiting in a
 * queue, as a broker losing unconfirmed state or an operator purge would. Test-only; production
 * code reaches RabbitMQ only through libs/bus.
 */
import type { LocalCluster } from './cluster';

const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Drops every ready message of `queue` (the run's prefix is added); returns how many were dropped. */
export async function purgeQueue(cluster: LocalCluster, queue: string): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const amqp = require('amqplib') as { connect(url: string): Promise<any> };
  const connection = await amqp.connect(process.env.AMQP_URL ?? DEFAULT_AMQP_URL);
  try {
    const channel = await connection.createChannel();
    const { messageCount } = await channel.purgeQueue(`run-${cluster.runId}.${queue}`);
    await channel.close();
    return messageCount as number;
  } finally {
    await connection.close();
  }
}

/** Messages ready in `queue` (the run's prefix is added), not counting those a consumer holds. */
export async function queueDepth(cluster: LocalCluster, queue: string): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const amqp = require('amqplib') as { connect(url: string): Promise<any> };
  const connection = await amqp.connect(process.env.AMQP_URL ?? DEFAULT_AMQP_URL);
  try {
    const channel = await connection.createChannel();
    const { messageCount } = await channel.checkQueue(`run-${cluster.runId}.${queue}`);
    await channel.close();
    return messageCount as number;
  } finally {
    await connection.close();
  }
}
