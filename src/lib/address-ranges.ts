// A set of IP addresses and CIDR ranges, IPv4 and IPv6, that client
// addresses are tested against: the trusted proxies, and a backend's or a
// user's allowed_ips. Parsed once; each answer is remembered per address.
import { BlockList, isIP } from 'node:net';

const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** Answers remembered per address: BlockList.check builds a SocketAddress per call, a few µs each. */
const MAX_REMEMBERED = 10_000;

export class AddressRanges {
  private readonly answers = new Map<string, boolean>();

  private constructor(private readonly ranges: BlockList) {}

  /** null when an entry is neither an address nor a CIDR range. */
  static compile(entries: readonly string[]): AddressRanges | null {
    const ranges = new BlockList();
    for (const entry of entries) if (!addEntry(ranges, entry)) return null;
    return new AddressRanges(ranges);
  }

  has(address: string | undefined): boolean {
    if (address === undefined) return false;
    let answer = this.answers.get(address);
    if (answer === undefined) {
      if (this.answers.size >= MAX_REMEMBERED) this.answers.clear();
      answer = this.check(address);
      this.answers.set(address, answer);
    }
    return answer;
  }

  private check(address: string): boolean {
    // A dual-stack socket names an IPv4 client ::ffff:a.b.c.d; the ranges name it a.b.c.d.
    const mapped = IPV4_MAPPED.exec(address);
    if (mapped !== null) return this.ranges.check(mapped[1]!, 'ipv4');
    const family = isIP(address);
    return family !== 0 && this.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** "10.0.0.1", "10.0.0.0/8", "2001:db8::/32": what compile() takes. */
export function isAddressOrRange(entry: string): boolean {
  return addEntry(new BlockList(), entry);
}

function addEntry(ranges: BlockList, entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) ranges.addAddress(address, type);
  else if (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)) ranges.addSubnet(address, Number(bits), type);
  else return false;
  return true;
}
