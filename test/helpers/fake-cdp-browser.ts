/**
 * A fake browser for CDP client tests: a real WebSocket server speaking CDP's JSON. `answer`
 * decides each reply (undefined: no reply); `peer` is the server side of the last connection,
 * for events and closes; `received` is every message, parsed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** What the fake browser received: the protocol's JSON, parsed. */
export interface Received {
  id: number;
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

/**
 * A real WebSocket server speaking CDP's JSON: `answer` decides each reply (undefined: no reply);
 * `peer` is the server side of the last connection, for events and closes.
 */
export class FakeBrowser {
  readonly received: Received[] = [];
  answer: (m: Received) => object | undefined = () => ({ result: {} });
  peer: WebSocket | undefined;
  readonly http: Server = createServer();
  readonly wss = new WebSocketServer({ server: this.http });

  constructor() {
    this.wss.on('connection', (socket, request) => {
      this.peer = socket;
      this.lastPath = request.url ?? '';
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Received;
        this.received.push(message);
        const reply = this.answer(message);
        if (reply) socket.send(JSON.stringify({ id: message.id, ...reply }));
      });
    });
  }

  lastPath = '';

  async listen(path?: string): Promise<string> {
    await new Promise<void>((resolve) =>
      path ? this.http.listen(path, resolve) : this.http.listen(0, '127.0.0.1', resolve),
    );
    return `ws://127.0.0.1:${(this.http.address() as AddressInfo).port}/devtools/browser/x`;
  }

  emit(method: string, params: object, sessionId?: string): void {
    this.peer?.send(JSON.stringify({ method, params, sessionId }));
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    await new Promise((resolve) => this.http.close(resolve));
  }
}
