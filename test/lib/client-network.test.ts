import { describe, expect, it } from 'vitest';
import { clientNetwork } from '../../src/lib/client-network.js';

describe('clientNetwork', () => {
  it('keeps an IPv4 address as it is: each one its own client', () => {
    expect(clientNetwork('192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetwork('192.0.2.8')).toBe('192.0.2.8');
  });

  it('names an IPv4-mapped IPv6 address by its IPv4, however written', () => {
    expect(clientNetwork('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetwork('::FFFF:192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetwork('0:0:0:0:0:ffff:c000:0207')).toBe('192.0.2.7');
  });

  it('gives every address of one IPv6 /64 the same name, whatever the case, zeros, "::" or zone', () => {
    const network = '2001:db8:0:1::/64';
    for (const address of ['2001:db8:0:1::1', '2001:db8:0:1::28', '2001:DB8:0000:0001:ffff:ffff:ffff:ffff', '2001:db8::1:abcd:1234:5678:9abc', '2001:db8:0:1:0:0:0:0']) {
      expect(clientNetwork(address), address).toBe(network);
    }
    expect(clientNetwork('fe80::1%eth0')).toBe(clientNetwork('fe80::2'));
  });

  it('tells other /64s apart, the next one included', () => {
    expect(clientNetwork('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(clientNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    // An IPv4 address embedded otherwise than mapped (NAT64) is IPv6.
    expect(clientNetwork('64:ff9b::192.0.2.7')).toBe('64:ff9b:0:0::/64');
  });

  it('gives back what is no IP address as it is', () => {
    for (const value of ['', 'unknown', '192.0.2.300', '2001:db8::/64']) expect(clientNetwork(value)).toBe(value);
  });
});
