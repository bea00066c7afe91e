import { env } from './load-config';

const address = env.grpcAddress('127.0.0.1:50052');

describe('a gRPC address setting', () => {
  it.each([
    '127.0.0.1:50052',
    'crm-records:50052',
    '[::1]:50052',
    'unix:/tmp/crm/records.sock',
    'dns:///crm-records-headless:50052',
    'ipv4:10.0.0.1:50052,10.0.0.2:50052',
  ])('accepts %s', (value) => {
    expect(address.safeParse(value).success).toBe(true);
  });

  it.each(['crm-records', 'dns:///crm-records-headless', 'dns://crm-records:50052', 'ipv4:crm-records:50052', 'http://crm-records:50052'])(
    'refuses %s',
    (value) => {
      expect(address.safeParse(value).success).toBe(false);
    },
  );
});
