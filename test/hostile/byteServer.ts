/**
 * A loopback HTTP server that answers with exactly the bytes a test gives it, for the hostile
 * suite (issue 14): status, headers and body as set, nothing added but what Node's http module
 * needs (Content-Length when the body is a buffer, Date, Connection). `rawHandler` takes over the
 * socket for faults HTTP itself cannot express (see faultServer.ts). Binds 127.0.0.1 only.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Canned {
  status?: number;
  headers?: Record<string, string | string[]>;
  body?: Uint8Array | string;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface ByteServer {
  url: string;
  port: number;
  /** Every request that reached this server, in order. */
  requests: SeenRequest[];
  /** What the next requests get (the last one set stays until changed). */
  serve(c: Canned | ((req: http.IncomingMessage, res: http.ServerResponse) => void)): void;
  close(): Promise<void>;
}

export async function startByteServer(host = '127.0.0.1'): Promise<ByteServer> {
  let answer: Canned | ((req: http.IncomingMessage, res: http.ServerResponse) => void) = { status: 404 };
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (typeof answer === 'function') {
      answer(req, res);
      return;
    }
    const body = answer.body === undefined ? Buffer.alloc(0) : Buffer.from(answer.body as Uint8Array | string);
    res.writeHead(answer.status ?? 200, { 'Content-Length': String(body.length), ...answer.headers });
    res.end(body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    serve(c) {
      answer = c;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
