/** A real loopback HTTP server for client tests: scripted responses, recorded requests. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Client port: equal across requests when a keep-alive connection was reused. */
  remotePort: number | undefined;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  origin: string;
  requests: RecordedRequest[];
  /** Handlers used in order, one per request; the last one repeats. */
  respond(...handlers: Handler[]): void;
  close(): Promise<void>;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
}

/** Destroys the socket without a response. */
export const drop: Handler = (_req, res) => {
  res.socket?.destroy();
};

export async function startTestServer(): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  let handlers: Handler[] = [json(200, { data: {} })];
  let index = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      remotePort: req.socket.remotePort,
    };
    requests.push(recorded);
    const handler = handlers[Math.min(index++, handlers.length - 1)] as Handler;
    await handler(recorded, res);
  });
  // Node closes idle keep-alive sockets after 5 s; on a loaded machine a client can pick one up
  // just as it closes and see ECONNRESET on a POST it must not retry. Tests close explicitly.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    respond(...next) {
      handlers = next;
      index = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
