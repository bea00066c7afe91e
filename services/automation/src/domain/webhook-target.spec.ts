import { addressProblem, targetUrlProblem } from './webhook-target';

describe('targetUrlProblem', () => {
  it('accepts an https URL of a public host', () => {
    expect(targetUrlProblem('https://hooks.example.com/crm', false)).toBeNull();
    expect(targetUrlProblem('https://93.184.216.34/crm', false)).toBeNull();
  });

  it('refuses plain http unless the operator allows it', () => {
    expect(targetUrlProblem('http://hooks.example.com/', false)).toMatch(/https/);
    expect(targetUrlProblem('http://hooks.example.com/', true)).toBeNull();
  });

  it('refuses other schemes and garbage', () => {
    expect(targetUrlProblem('ftp://hooks.example.com/', true)).toMatch(/https/);
    expect(targetUrlProblem('not a url', false)).toMatch(/valid URL/);
  });

  it('refuses credentials in the URL', () => {
    expect(targetUrlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/password/);
  });

  it.each([
    ['loopback', 'https://127.0.0.1/'],
    ['loopback, another address of the block', 'https://127.1.2.3/'],
    ['loopback, decimal', 'https://2130706433/'],
    ['loopback, hexadecimal', 'https://0x7f000001/'],
    ['loopback, short form', 'https://127.1/'],
    ['loopback, octal parts', 'https://0177.0.0.1/'],
    ['loopback by name', 'https://localhost/'],
    ['loopback by a .localhost name', 'https://api.localhost./'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6 private, hex spelling', 'https://[::ffff:a00:1]/'],
    ['private 10/8', 'https://10.0.0.1/'],
    ['private 172.16/12', 'https://172.16.5.4/'],
    ['private 192.168/16', 'https://192.168.1.1/'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data/'],
    ['metadata by name', 'https://metadata.google.internal/'],
    ['carrier-grade NAT (Alibaba metadata)', 'https://100.100.100.200/'],
    ['unspecified', 'https://0.0.0.0/'],
    ['IPv6 unique local', 'https://[fd00:ec2::254]/'],
    ['IPv6 link-local', 'https://[fe80::1]/'],
    ['NAT64 embedding a private address', 'https://[64:ff9b::a00:1]/'],
    ['multicast', 'https://224.0.0.1/'],
  ])('refuses %s (%s)', (_label, url) => {
    expect(targetUrlProblem(url, false)).toMatch(/public/);
  });

  it('lets the operator allow private addresses for development', () => {
    expect(targetUrlProblem('http://127.0.0.1:8080/', true)).toBeNull();
  });
});

describe('addressProblem', () => {
  it('accepts a public address of either family', () => {
    expect(addressProblem('93.184.216.34')).toBeNull();
    expect(addressProblem('2606:2800:220:1:248:1893:25c8:1946')).toBeNull();
  });

  it('judges an IPv4-mapped IPv6 answer as the IPv4 address it carries', () => {
    expect(addressProblem('::ffff:10.1.2.3')).toMatch(/10\.1\.2\.3 is a private address/);
  });

  it('refuses what is not an address', () => {
    expect(addressProblem('example.com')).toMatch(/not an IP/);
  });
});
