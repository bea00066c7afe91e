import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { inFlightLimit } from './contact-import-now';

/** A request and its answer as far as the limit sees them: the answer can finish or its connection close. */
function exchange() {
  return { req: new EventEmitter() as unknown as Request, res: new EventEmitter() as unknown as Response };
}

describe('synchronous imports in flight at the gateway', () => {
  it('refuses one more than the limit with unavailable (503) and admits again once one has answered', () => {
    const admit = inFlightLimit({ total: 2, perWorkspace: 2 });
    const first = exchange();
    admit('ws_a', first.req, first.res);
    admit('ws_b', exchange().req, exchange().res);
    const third = exchange();
    expect(() => admit('ws_c', third.req, third.res)).toThrow(expect.objectContaining({ kind: 'unavailable' }));
    first.res.emit('finish');
    first.res.emit('close');
    expect(() => admit('ws_c', third.req, third.res)).not.toThrow();
  });

  it('keeps room for other workspaces when one workspace has its share in flight', () => {
    const admit = inFlightLimit({ total: 10, perWorkspace: 2 });
    admit('ws_busy', exchange().req, exchange().res);
    const second = exchange();
    admit('ws_busy', second.req, second.res);
    expect(() => admit('ws_busy', exchange().req, exchange().res)).toThrow(expect.objectContaining({ kind: 'unavailable' }));
    expect(() => admit('ws_other', exchange().req, exchange().res)).not.toThrow();
    second.res.emit('close');
    expect(() => admit('ws_busy', exchange().req, exchange().res)).not.toThrow();
  });
});
