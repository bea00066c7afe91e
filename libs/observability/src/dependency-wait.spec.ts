import type { Logger } from './logger';
import { dependencyDelayMs, openWhenReachable, urlHost } from './dependency-wait';

function recordingLogger(): { logger: Logger; warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  const logger = {
    warn: (_fields: object, message: string) => warnings.push(message),
    info: (_fields: object, message: string) => infos.push(message),
  };
  return { logger: logger as unknown as Logger, warnings, infos };
}

const broker = { name: 'RabbitMQ', where: 'rabbitmq:5672' };

describe('waiting for a dependency at start', () => {
  it('waits twice as long after every failure, up to its cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((attempt) => dependencyDelayMs(attempt))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('keeps trying until the dependency answers, saying so at every attempt', async () => {
    const { logger, warnings, infos } = recordingLogger();
    let attempts = 0;
    const opened = await openWhenReachable(
      broker,
      async () => {
        attempts += 1;
        if (attempts < 4) throw new Error('connect ECONNREFUSED');
        return 'connection';
      },
      logger,
      { firstDelayMs: 5, maxDelayMs: 10 },
    );
    expect({ opened, attempts }).toEqual({ opened: 'connection', attempts: 4 });
    expect(warnings).toEqual([
      'waiting for RabbitMQ at rabbitmq:5672: attempt 1 failed, next in 5 ms',
      'waiting for RabbitMQ at rabbitmq:5672: attempt 2 failed, next in 10 ms',
      'waiting for RabbitMQ at rabbitmq:5672: attempt 3 failed, next in 10 ms',
    ]);
    expect(infos).toEqual(['reached RabbitMQ at rabbitmq:5672']);
  });

  it('throws at once a failure that waiting cannot mend', async () => {
    const { logger } = recordingLogger();
    const refused = new Error('ACCESS_REFUSED');
    await expect(openWhenReachable(broker, () => Promise.reject(refused), logger, { retryable: () => false })).rejects.toBe(refused);
  });

  it('stops waiting when the process is told to stop', async () => {
    const { logger } = recordingLogger();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(
      openWhenReachable(broker, () => Promise.reject(new Error('down')), logger, { firstDelayMs: 60_000, signal: controller.signal }),
    ).rejects.toThrow('down');
  });

  it('names where a URL points without its credentials', () => {
    expect(urlHost('mongodb://crm:secret@mongo-0.mongo:27017,mongo-1.mongo:27017/crm?replicaSet=rs0')).toBe(
      'mongo-0.mongo:27017,mongo-1.mongo:27017',
    );
  });
});
