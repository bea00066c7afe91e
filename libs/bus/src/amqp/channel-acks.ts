/**
 * The acknowledgements of one consumer channel, sent in as few frames as they can be. Each ack is
 * a frame and a socket write of its own, and a consumer of record events acknowledged thousands a
 * second one by one (the automation worker spent a fifth of its CPU writing them).
 *
 * A delivery whose handler succeeded is acknowledged at the end of the event loop's turn, together
 * with the others finished by then: the run of finished deliveries from the oldest unsettled one
 * goes as one `multiple` ack (the broker acknowledges every outstanding tag up to it). A finished
 * delivery behind one still under way is acknowledged on its own, so a slow handler holds back
 * neither another's acknowledgement nor its prefetch slot. A nack goes at once.
 *
 * Deliveries of a channel that closed before its acks went out are the broker's again (it
 * redelivers them): at least once, as before, the window only a turn of the event loop longer.
 */
import type { Channel, ConsumeMessage } from 'amqplib';

export class ChannelAcks {
  /** Deliveries not yet acknowledged or rejected, oldest first (delivery tags rise on a channel). */
  private readonly unsettled: ConsumeMessage[] = [];
  private readonly finished = new Set<ConsumeMessage>();
  private flushing: NodeJS.Immediate | undefined;

  constructor(
    readonly channel: Channel,
    /** Called when the channel refuses a settlement (it is closing; the broker has the deliveries back). */
    private readonly onRefused: (err: unknown) => void,
  ) {}

  received(delivery: ConsumeMessage): void {
    this.unsettled.push(delivery);
  }

  /** The delivery's handler succeeded: acknowledged with the others finished in this turn. */
  succeeded(delivery: ConsumeMessage): void {
    this.finished.add(delivery);
    this.flushing ??= setImmediate(() => this.flush());
  }

  /** The delivery's handler failed: rejected now, back to its queue or to the dead letters. */
  failed(delivery: ConsumeMessage, requeue: boolean): void {
    this.forget(delivery);
    this.settle(() => this.channel.nack(delivery, false, requeue));
  }

  /** Sends every acknowledgement waiting (also called before the channel closes). */
  flush(): void {
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.finished.size === 0) return;
    let run = 0;
    while (run < this.unsettled.length && this.finished.has(this.unsettled[run]!)) run++;
    if (run > 0) {
      const last = this.unsettled[run - 1]!;
      for (const delivery of this.unsettled.splice(0, run)) this.finished.delete(delivery);
      this.settle(() => this.channel.ack(last, run > 1));
    }
    for (const delivery of this.finished) {
      this.forget(delivery);
      this.settle(() => this.channel.ack(delivery));
    }
    this.finished.clear();
  }

  private forget(delivery: ConsumeMessage): void {
    const at = this.unsettled.indexOf(delivery);
    if (at >= 0) this.unsettled.splice(at, 1);
    this.finished.delete(delivery);
  }

  private settle(settlement: () => void): void {
    try {
      settlement();
    } catch (err) {
      this.onRefused(err);
    }
  }
}
