// The address of a connection's client, as the gateway names it everywhere:
// analytics, rate limits by IP, allowed_ips, trusted proxies, X-Forwarded-For.
import type { Socket } from 'node:net';

const MAPPED_PREFIX = '::ffff:';

/**
 * A dual-stack listener (listen.host "::") names an IPv4 client
 * ::ffff:a.b.c.d; this names it a.b.c.d, as an IPv4 listener does, so that
 * one client is one address whichever way Parasol listens.
 */
export function peerAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith(MAPPED_PREFIX) && address.includes('.') ? address.slice(MAPPED_PREFIX.length) : address;
}
