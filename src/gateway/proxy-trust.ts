// Who the client is when requests may come through trusted proxies. The IP
// is read as nginx's realip module reads it in front of API Umbrella
// (real_ip_recursive): X-Forwarded-For from the right while each hop is a
// trusted proxy, a hop's port dropped (`203.0.113.9:50312`, as some cloud
// load balancers write it), and a hop that is no address at all ends the walk
// at the last trusted one. With real_ip_header set (a CDN's True-Client-IP,
// as API Umbrella's hosts[].real_ip_header), that header from a trusted peer
// names the client instead. Host and protocol are Fastify's trustProxy rules.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { AddressRanges } from '../lib/address-ranges.js';
import { peerAddress } from '../lib/peer-address.js';

/** Trusted whatever the config says, as in API Umbrella. */
const ALWAYS_TRUSTED = ['127.0.0.1', '::1'];

export interface ClientAddress {
  readonly ip: string;
  /** Host header, or the last X-Forwarded-Host from a trusted proxy. */
  readonly host: string;
  readonly protocol: 'http' | 'https';
  /** The last X-Forwarded-Port from a trusted proxy, when it is a port number; null: the port the client connected to. */
  readonly forwardedPort: string | null;
}

export class ProxyTrust {
  private constructor(
    private readonly trusted: AddressRanges,
    /** real_ip_header, lowercase as Node names headers; null: X-Forwarded-For. */
    private readonly realIpHeader: string | null,
  ) {}

  /** `trusted_proxies` as the config has checked it (addresses and CIDR ranges), and `real_ip_header`. */
  static of(trustedProxies: readonly string[], realIpHeader: string | null = null): ProxyTrust {
    const trusted = AddressRanges.compile([...ALWAYS_TRUSTED, ...trustedProxies]);
    if (trusted === null) throw new Error('trusted_proxies: expected a list of IP addresses and CIDR ranges');
    return new ProxyTrust(trusted, realIpHeader?.toLowerCase() ?? null);
  }

  isTrusted(address: string | undefined): boolean {
    return this.trusted.has(address);
  }

  clientOf(request: IncomingMessage): ClientAddress {
    const { headers } = request;
    const peer = peerAddress(request.socket);
    const peerTrusted = this.isTrusted(peer);
    const forwardedHost = peerTrusted ? text(headers['x-forwarded-host']) : undefined;
    const forwardedProto = peerTrusted ? text(headers['x-forwarded-proto']) : undefined;
    const forwardedPort = peerTrusted ? text(headers['x-forwarded-port']) : undefined;
    return {
      ip: peerTrusted ? this.forwardedIp(peer, headers) : peer,
      host: forwardedHost ? lastEntry(forwardedHost) : (headers.host ?? ''),
      protocol: (forwardedProto && protocolNamed(lastEntry(forwardedProto))) || (isEncrypted(request) ? 'https' : 'http'),
      forwardedPort: forwardedPort ? portNumber(lastEntry(forwardedPort)) : null,
    };
  }

  ipOf(request: IncomingMessage): string {
    const peer = peerAddress(request.socket);
    return this.isTrusted(peer) ? this.forwardedIp(peer, request.headers) : peer;
  }

  /** The client a trusted peer names, read from the right as X-Forwarded-For is; the peer itself when it names none. */
  private forwardedIp(peer: string, headers: IncomingHttpHeaders): string {
    return this.throughProxies(peer, text(headers[this.realIpHeader ?? 'x-forwarded-for']));
  }

  private throughProxies(peer: string, forwardedFor: string | undefined): string {
    if (!forwardedFor) return peer;
    const hops = forwardedFor.split(',');
    let client = peer;
    for (let index = hops.length - 1; index >= 0; index--) {
      const hop = hops[index]!.trim();
      if (hop === '') continue;
      const address = addressOfHop(hop);
      if (address === null) break;
      client = address;
      if (!this.isTrusted(client)) break;
    }
    return client;
  }
}

const PORT = /^:\d{1,5}$/;

/** `a.b.c.d`, `a.b.c.d:port`, an IPv6 address bare or `[…]` with or without a port; null for anything else. */
function addressOfHop(hop: string): string | null {
  if (isIP(hop) !== 0) return hop;
  if (hop.startsWith('[')) {
    const end = hop.indexOf(']');
    const address = hop.slice(1, end);
    return end > 0 && isIP(address) === 6 && isPort(hop.slice(end + 1), true) ? address : null;
  }
  const colon = hop.lastIndexOf(':');
  const address = hop.slice(0, colon);
  return colon > 0 && isIP(address) === 4 && isPort(hop.slice(colon), false) ? address : null;
}

/** ":1"–":65535" (nginx refuses port 0); "" only where the port may be left out. */
function isPort(text: string, optional: boolean): boolean {
  if (text === '') return optional;
  if (!PORT.test(text)) return false;
  const port = Number(text.slice(1));
  return port >= 1 && port <= 65535;
}

/** Node joins repeated X-Forwarded-* headers into one string; anything else is ignored, as proxy-addr does. */
function text(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

const PORT_NUMBER = /^\d{1,5}$/;

function portNumber(value: string): string | null {
  return PORT_NUMBER.test(value) ? value : null;
}

/** A trusted proxy's X-Forwarded-Proto in any case ("HTTPS"); anything but http or https is not believed (null). */
function protocolNamed(claimed: string): 'http' | 'https' | null {
  const lower = claimed.toLowerCase();
  return lower === 'https' || lower === 'http' ? lower : null;
}

function lastEntry(value: string): string {
  const comma = value.lastIndexOf(',');
  return (comma < 0 ? value : value.slice(comma + 1)).trim();
}

function isEncrypted(request: IncomingMessage): boolean {
  return (request.socket as { encrypted?: boolean }).encrypted === true;
}
