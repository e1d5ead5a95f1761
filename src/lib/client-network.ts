// Which client an address stands for where failures and requests are counted
// per client (the web admin's sign-in lockout, "Forgot password" requests):
// an IPv4 address on its own, but an IPv6 address's whole /64, the block one
// home, phone or server is given, whose 2^64 addresses one client can pick
// from at will. Counted per IPv6 address, one client would never be locked.
import { isIP } from 'node:net';

/**
 * "192.0.2.7" for 192.0.2.7 and for its IPv4-mapped form ::ffff:192.0.2.7;
 * "2001:db8:0:1::/64" for 2001:db8::1:abcd:1234:5678:9abc and every other
 * address of that /64 (however it is written: case, leading zeros, "::", a
 * zone). Anything that is no IP address comes back as it is.
 */
export function clientNetwork(address: string): string {
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (isIP said so), zone dropped. */
function ipv6Groups(address: string): number[] {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const groupsOf = (part: string | undefined): number[] =>
    part === undefined || part === '' ? [] : part.split(':').flatMap((piece) => (piece.includes('.') ? ipv4Groups(piece) : [Number.parseInt(piece, 16)]));
  const left = groupsOf(head);
  const right = groupsOf(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** An embedded dotted IPv4 tail (::ffff:192.0.2.7, 64:ff9b::192.0.2.7) as two groups. */
function ipv4Groups(dotted: string): number[] {
  const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
  return [(a << 8) | b, (c << 8) | d];
}
