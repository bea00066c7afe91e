import type { Channel, ConsumeMessage } from 'amqplib';
import { ChannelAcks } from './channel-acks';

/** What the channel was asked to settle, as [method, delivery tag, multiple, requeue]. */
function recordingChannel(): { channel: Channel; sent: unknown[][] } {
  const sent: unknown[][] = [];
  const tag = (m: ConsumeMessage) => m.fields.deliveryTag;
  const channel = {
    ack: (m: ConsumeMessage, multiple = false) => sent.push(['ack', tag(m), multiple]),
    nack: (m: ConsumeMessage, multiple = false, requeue = true) => sent.push(['nack', tag(m), multiple, requeue]),
  } as unknown as Channel;
  return { channel, sent };
}

const delivery = (deliveryTag: number) => ({ fields: { deliveryTag } }) as ConsumeMessage;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('ChannelAcks', () => {
  it('acknowledges the deliveries finished in one turn with one multiple ack', async () => {
    const { channel, sent } = recordingChannel();
    const acks = new ChannelAcks(channel, () => undefined);
    const all = [1, 2, 3, 4].map(delivery);
    all.forEach((d) => acks.received(d));
    [all[2]!, all[0]!, all[1]!].forEach((d) => acks.succeeded(d));
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual([['ack', 3, true]]);
    acks.succeeded(all[3]!);
    await nextTurn();
    expect(sent).toEqual([
      ['ack', 3, true],
      ['ack', 4, false],
    ]);
  });

  it('never acknowledges a delivery still under way: one finished behind it goes on its own', async () => {
    const { channel, sent } = recordingChannel();
    const acks = new ChannelAcks(channel, () => undefined);
    const all = [1, 2, 3].map(delivery);
    all.forEach((d) => acks.received(d));
    acks.succeeded(all[1]!);
    acks.succeeded(all[2]!);
    await nextTurn();
    expect(sent).toEqual([
      ['ack', 2, false],
      ['ack', 3, false],
    ]);
    acks.succeeded(all[0]!);
    await nextTurn();
    expect(sent.at(-1)).toEqual(['ack', 1, false]);
  });

  it('rejects a failed delivery at once, and acknowledges the run past it', async () => {
    const { channel, sent } = recordingChannel();
    const acks = new ChannelAcks(channel, () => undefined);
    const all = [1, 2, 3].map(delivery);
    all.forEach((d) => acks.received(d));
    acks.succeeded(all[0]!);
    acks.failed(all[1]!, true);
    acks.succeeded(all[2]!);
    expect(sent).toEqual([['nack', 2, false, true]]);
    await nextTurn();
    expect(sent).toEqual([
      ['nack', 2, false, true],
      ['ack', 3, true],
    ]);
  });

  it('sends what waits when flushed before its channel closes, and reports a refused settlement', () => {
    const refused: unknown[] = [];
    const channel = {
      ack: () => {
        throw new Error('Channel closed');
      },
    } as unknown as Channel;
    const acks = new ChannelAcks(channel, (err) => refused.push(err));
    const one = delivery(1);
    acks.received(one);
    acks.succeeded(one);
    acks.flush();
    expect(refused).toHaveLength(1);
  });
});
