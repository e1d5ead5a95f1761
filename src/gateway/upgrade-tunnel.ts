// WebSockets (and any other HTTP Upgrade) through the gateway. The upgrade
// request is matched and checked like every other request, and refused with
// the same error responses; once the upstream switches protocols, the two
// connections are joined byte for byte until either side closes.
import { ServerResponse, type IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { Readable, type Duplex } from 'node:stream';

/** What an exchange needs to carry an upgrade through. */
export interface UpgradeRequest {
  /** The client's connection, no longer Node's HTTP server's once it emitted 'upgrade'. */
  readonly socket: Duplex;
  /** Bytes the client sent after the request head, for the upstream. */
  readonly head: Buffer;
  /** The protocol the client asked for (Upgrade header), e.g. "websocket". */
  readonly protocol: string;
}

/**
 * A response on the upgrade's connection, so a refusal, or an upstream that
 * answers without switching protocols, is written as for any request. The
 * connection is closed once such a response is sent; the response's 'close'
 * still comes when the connection closes, as the analytics entry expects.
 */
export function responseOnUpgrade(request: IncomingMessage, socket: Duplex): ServerResponse {
  socket.once('end', leave);
  const res = new ServerResponse(request);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  // Node's server relays a connection's 'drain' to its response only while the connection is its own.
  const relayDrain = (): boolean => res.emit('drain');
  socket.on('drain', relayDrain);
  res.on('finish', () => {
    socket.off('drain', relayDrain);
    socket.end();
  });
  return res;
}

/**
 * Node's server leaves an upgrade's connection half-open when the client
 * ends its side, so a client that gave up waiting for the upstream would
 * neither close the response nor stop the upstream call. Before the switch
 * an end means the client is gone, as nginx takes it in front of API
 * Umbrella (499): the connection is closed, and with it the response.
 */
function leave(this: Duplex): void {
  this.destroy();
}

/** The 101 head for the client: the upstream's headers as any response's, then the two that make the switch. */
export function switchingProtocolsHead(headers: readonly string[], protocol: string): string {
  let head = 'HTTP/1.1 101 Switching Protocols\r\n';
  for (let index = 0; index < headers.length; index += 2) head += `${headers[index]}: ${headers[index + 1]}\r\n`;
  return `${head}Connection: Upgrade\r\nUpgrade: ${protocol}\r\n\r\n`;
}

/**
 * A tunnel may stay idle for hours, and has no timeout: TCP keepalive probes
 * find a peer that vanished without closing (a phone gone out of range), so
 * its tunnel and the connection at the other end are closed, not held until
 * the next stop.
 */
const TUNNEL_KEEPALIVE_MS = 60_000;

/** Bytes flow both ways with backpressure; an end or error on either side closes both. */
export function joinConnections(client: Duplex, upstream: Duplex): void {
  for (const side of [client, upstream]) if (side instanceof Socket) side.setKeepAlive(true, TUNNEL_KEEPALIVE_MS);
  // Switched: an end from the client now goes on to the upstream, which may still answer.
  client.off('end', leave);
  const closeBoth = (): void => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', closeBoth);
  upstream.on('error', closeBoth);
  client.on('close', closeBoth);
  upstream.on('close', closeBoth);
  client.pipe(upstream);
  upstream.pipe(client);
}

/**
 * Node's HTTP server hands over an Upgrade request that carries a body (an
 * h2c upgrade on a POST, say) as an upgrade too. Such a request is proxied
 * as an ordinary one, its Content-Length bytes read here from what followed
 * the head and then from the connection.
 */
export function bodyAfterHead(head: Buffer, socket: Duplex, length: number): Readable {
  let remaining = length;
  const body = new Readable({ read: () => void socket.resume() });
  const take = (chunk: Buffer): void => {
    const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
    remaining -= part.length;
    const wantsMore = body.push(part);
    if (remaining === 0) {
      socket.off('data', take);
      socket.pause();
      body.push(null);
    } else if (!wantsMore) {
      socket.pause();
    }
  };
  if (head.length > 0) take(head);
  if (remaining > 0) {
    socket.on('data', take);
    socket.once('close', () => remaining > 0 && body.destroy(new Error('the client closed before sending the whole body')));
  }
  return body;
}

/** Upgraded connections, which Node's HTTP server no longer tracks: a stopping gateway closes them itself. */
export class OpenUpgrades {
  private readonly sockets = new Set<Duplex>();

  add(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  closeAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}
