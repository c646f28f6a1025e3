/**
 * The emulator's model of the network between a user and the service: a TCP front that holds
 * every byte for half the round-trip time in each direction, and every new connection's first
 * byte for one more round trip (the TCP handshake). So an HTTP exchange costs one RTT, a
 * websocket frame half of one each way (a CDP call and its answer: one RTT), and a fresh
 * connection one more, as on a real link. Only latency is modelled: no bandwidth limit, no loss.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import {
  type AddressInfo,
  createServer,
  type Server as NetServer,
  type Socket,
  connect as tcpConnect,
} from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';

/**
 * Bytes held in one direction before the sender is paused, like a TCP window: a fast sender
 * cannot make the front buffer a whole download. Throughput is then at most this per half RTT.
 */
const MAX_IN_FLIGHT_BYTES = 8 * 1024 * 1024;

const END = Symbol('end');
const DESTROY = Symbol('destroy');
type Item = { data: Buffer | typeof END | typeof DESTROY; due: number };

/**
 * Relays `from` to `to`, each chunk no earlier than `delayMs` after it arrived, and none before
 * `gateAt` + `delayMs` (the handshake). Order is kept; a release is checked against the
 * monotonic clock, so a timer that fires early never lets a byte through early.
 */
function delayLine(from: Socket, to: Socket, delayMs: number, gateAt: number): void {
  const queue: Item[] = [];
  let queuedBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let blocked = false;

  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (!blocked && queue[0] && queue[0].due <= now) {
      const { data } = queue.shift() as Item;
      if (data === END) to.end();
      else if (data === DESTROY) to.destroy();
      else {
        queuedBytes -= data.length;
        if (!to.write(data)) {
          blocked = true;
          to.once('drain', () => {
            blocked = false;
            flush();
          });
        }
      }
    }
    if (queuedBytes <= MAX_IN_FLIGHT_BYTES && from.isPaused() && !from.destroyed) from.resume();
    schedule();
  };
  const schedule = () => {
    if (timer || blocked || !queue[0]) return;
    timer = setTimeout(flush, Math.max(0, Math.ceil(queue[0].due - performance.now())));
  };
  const push = (data: Item['data']) => {
    queue.push({ data, due: Math.max(performance.now(), gateAt) + delayMs });
    schedule();
  };

  from.on('data', (chunk: Buffer) => {
    queuedBytes += chunk.length;
    if (queuedBytes > MAX_IN_FLIGHT_BYTES) from.pause();
    push(chunk);
  });
  from.on('end', () => push(END));
  // A reset (or a close without a FIN) reaches the other side after the same delay.
  from.on('close', () => {
    if (!from.readableEnded) push(DESTROY);
  });
  from.on('error', () => {});
}

export interface LatencyFront {
  /** `host:port` clients reach. */
  readonly address: string;
  readonly port: number;
  /** Stops accepting and cuts every relayed connection. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` and relays each connection to `target` (`host:port`) through the
 * model above. With `rttMs` 0 nobody should call this: the target is then reached directly.
 */
export async function openLatencyFront(options: {
  target: string;
  rttMs: number;
  host: string;
  port: number;
}): Promise<LatencyFront> {
  const { host: targetHost, port: targetPort } = splitAddress(options.target);
  const oneWay = options.rttMs / 2;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server: NetServer = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    // The client believes it is connected at once (loopback): its first bytes wait out the
    // handshake round trip it would have paid on a real link.
    const gateAt = performance.now() + options.rttMs;
    const upstream = tcpConnect({
      host: targetHost,
      port: targetPort,
      allowHalfOpen: true,
      noDelay: true,
    });
    track(client);
    track(upstream);
    delayLine(client, upstream, oneWay, gateAt);
    delayLine(upstream, client, oneWay, 0);
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  let closing: Promise<void> | undefined;
  return {
    address: `${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return {
    host: address.slice(0, colon).replace(/^\[|\]$/g, ''),
    port: Number(address.slice(colon + 1)),
  };
}

export interface Listening {
  origin: string;
  front: LatencyFront | undefined;
  /** The TLS listener in front of the server, with `tls`. */
  tls: TlsServer | undefined;
}

/**
 * With a network modelled, the server listens on a private port behind the latency front. With
 * TLS, a TLS listener terminates and hands each connection to the same HTTP server.
 */
export async function listenBehindNetwork(
  server: Server,
  options: { host: string; port: number; rttMs: number },
  serverTls: { key: string; cert: string } | undefined,
): Promise<Listening> {
  const { rttMs } = options;
  const tls = serverTls
    ? createTlsServer(serverTls, (socket) => server.emit('connection', socket))
    : undefined;
  const listener = tls ?? server;
  listener.listen(rttMs > 0 ? 0 : options.port, options.host);
  await once(listener, 'listening');
  const serverPort = (listener.address() as AddressInfo).port;
  const front =
    rttMs > 0
      ? await openLatencyFront({
          target: `${options.host}:${serverPort}`,
          rttMs,
          host: options.host,
          port: options.port,
        })
      : undefined;
  const port = front?.port ?? serverPort;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { origin: `${tls ? 'https' : 'http'}://${host}:${port}`, front, tls };
}
