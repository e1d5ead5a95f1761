// A real WebSocket upstream on loopback (the ws package) and a client that
// waits for its first message, for the tests of WebSockets through the gateway.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Server as TcpServer } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/** A WebSocket upstream: its first message tells the handshake it saw, then it echoes. */
export interface WebSocketUpstream {
  readonly port: number;
  readonly handshakes: { url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startWebSocketUpstream(): Promise<WebSocketUpstream> {
  const server: Server = createServer((_request, response) => response.writeHead(426).end());
  const sockets = new WebSocketServer({ server });
  const handshakes: WebSocketUpstream['handshakes'] = [];
  sockets.on('connection', (socket, request) => {
    handshakes.push({ url: request.url!, headers: request.headers });
    socket.send(JSON.stringify({ url: request.url, headers: request.headers }));
    socket.on('message', (data, binary) => socket.send(data, { binary }));
  });
  const listening = await listenOnLoopback(server, () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
  });
  return { ...listening, handshakes };
}

/** Starts `server` on a free loopback port; its close() first runs `beforeClose`, then waits for the server to close. */
export async function listenOnLoopback(server: Server | TcpServer, beforeClose: () => void): Promise<{ port: number; close(): Promise<void> }> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      beforeClose();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Opens a client and waits for the upstream's handshake report (its first message). */
export async function connect(url: string, headers: Record<string, string> = {}): Promise<{ socket: WebSocket; seen: { url: string; headers: IncomingHttpHeaders }; upgradeHeaders: IncomingHttpHeaders }> {
  const socket = new WebSocket(url, { headers });
  // The first message can come in the same tick as the upgrade: listen for both at once.
  const [[response], [first]] = (await Promise.all([once(socket, 'upgrade'), once(socket, 'message')])) as [[{ headers: IncomingHttpHeaders }], [Buffer]];
  return { socket, seen: JSON.parse(first.toString()) as { url: string; headers: IncomingHttpHeaders }, upgradeHeaders: response.headers };
}

