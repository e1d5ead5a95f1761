// Who the client is when requests may come through trusted proxies: the same
// answers Fastify's trustProxy (proxy-addr) gives for request.ip, .host and
// .protocol, for the requests the gateway takes before Fastify routes them.
import type { IncomingMessage } from 'node:http';
import { AddressRanges } from '../lib/address-ranges.js';

/** proxy-addr's named ranges, which Fastify's trustProxy accepts too. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

export interface ClientAddress {
  readonly ip: string;
  /** Host header, or the last X-Forwarded-Host from a trusted proxy. */
  readonly host: string;
  readonly protocol: 'http' | 'https';
}

export class ProxyTrust {
  private constructor(private readonly trusted: AddressRanges) {}

  /** null when an entry is neither an address, a CIDR range nor a named range. */
  static compile(entries: readonly string[]): ProxyTrust | null {
    const trusted = AddressRanges.compile(entries.flatMap((item) => NAMED_RANGES[item] ?? [item]));
    return trusted === null ? null : new ProxyTrust(trusted);
  }

  isTrusted(address: string | undefined): boolean {
    return this.trusted.has(address);
  }

  clientOf(request: IncomingMessage): ClientAddress {
    const { headers } = request;
    const peer = request.socket.remoteAddress ?? '';
    const peerTrusted = this.isTrusted(peer);
    const forwardedHost = peerTrusted ? text(headers['x-forwarded-host']) : undefined;
    const forwardedProto = peerTrusted ? text(headers['x-forwarded-proto']) : undefined;
    return {
      ip: peerTrusted ? this.throughProxies(peer, text(headers['x-forwarded-for'])) : peer,
      host: forwardedHost ? lastEntry(forwardedHost) : (headers.host ?? ''),
      protocol: forwardedProto ? (lastEntry(forwardedProto) as 'http' | 'https') : isEncrypted(request) ? 'https' : 'http',
    };
  }

  /** Walks X-Forwarded-For from the right while each hop is a trusted proxy; the first one that is not is the client. */
  private throughProxies(peer: string, forwardedFor: string | undefined): string {
    if (!forwardedFor) return peer;
    const hops = forwardedFor.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
    let client = peer;
    for (let index = hops.length - 1; index >= 0; index--) {
      client = hops[index]!;
      if (!this.isTrusted(client)) break;
    }
    return client;
  }
}

/** Node joins repeated X-Forwarded-* headers into one string; anything else is ignored, as proxy-addr does. */
function text(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function lastEntry(value: string): string {
  const comma = value.lastIndexOf(',');
  return (comma < 0 ? value : value.slice(comma + 1)).trim();
}

function isEncrypted(request: IncomingMessage): boolean {
  return (request.socket as { encrypted?: boolean }).encrypted === true;
}
