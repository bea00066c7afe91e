import { createHmac } from 'node:crypto';
import { signatureHeader } from './webhook-signature';

describe('signatureHeader', () => {
  const body = '{"id":"evt_1","type":"webhook.test"}';

  it('signs "<t>.<body>" with HMAC-SHA256 in hex after t=', () => {
    const expected = createHmac('sha256', 'whsec_a').update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(body, ['whsec_a'], 1700000000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('carries one v1= per valid secret during a rotation', () => {
    const header = signatureHeader(body, ['whsec_new', 'whsec_old'], 1700000000);
    const v1 = header.split(',').filter((part) => part.startsWith('v1='));
    expect(v1).toHaveLength(2);
    expect(v1[1]).toBe(`v1=${createHmac('sha256', 'whsec_old').update(`1700000000.${body}`).digest('hex')}`);
  });

  it('changes when the body changes', () => {
    expect(signatureHeader(body, ['s'], 1)).not.toBe(signatureHeader(`${body} `, ['s'], 1));
  });
});
