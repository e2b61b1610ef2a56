/**
 * A loopback server speaking raw TCP for the hostile suite's network faults (issue 14): each
 * request's head is read, then the test's handler writes whatever bytes it likes (or none) and
 * resets, stalls or closes the socket when it likes. Every request head that arrived is kept, so
 * a test can say which host saw the key. Binds the given loopback address only.
 */
import * as net from 'node:net';

export interface RawRequest {
  head: string;
  /** The request line's target, e.g. `/dmarc-records?…`. */
  target: string;
  authorization?: string;
}

export type RawHandler = (socket: net.Socket, req: RawRequest, index: number) => void;

export interface FaultServer {
  url: string;
  host: string;
  port: number;
  requests: RawRequest[];
  handle(h: RawHandler): void;
  /** Destroys every open connection (the server "goes away"), keeps listening unless `close`d. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startFaultServer(host = '127.0.0.1'): Promise<FaultServer> {
  let handler: RawHandler = (s) => s.destroy();
  const requests: RawRequest[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.slice(0, end);
      buf = buf.slice(end + 4);
      const target = head.split(' ')[1] ?? '';
      const auth = /^authorization:\s*(.*)$/im.exec(head)?.[1];
      const req: RawRequest = { head, target, ...(auth !== undefined ? { authorization: auth } : {}) };
      requests.push(req);
      // One request per connection is all a GET needs; later ones on a kept-alive socket go through the handler too.
      handler(socket, req, requests.length - 1);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://${host}:${port}`,
    host,
    port,
    requests,
    handle(h) {
      handler = h;
    },
    dropAll() {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP/1.1 response head with these headers (Connection: close unless given). */
export function head(status: number, headers: Record<string, string | number> = {}, reason = 'X'): string {
  const lines = [`HTTP/1.1 ${status} ${reason}`];
  const all = { Connection: 'close', ...headers };
  for (const [k, v] of Object.entries(all)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A whole 200 JSON response with `body`. */
export function ok(body: string | Buffer, headers: Record<string, string | number> = {}): Buffer {
  const b = Buffer.from(body);
  return Buffer.concat([Buffer.from(head(200, { 'Content-Type': 'application/json', 'Content-Length': b.length, ...headers })), b]);
}
