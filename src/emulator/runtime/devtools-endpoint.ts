/**
 * Where the host reaches one Chromium's DevTools endpoint: its loopback TCP port (`isolation:
 * 'none'`, the shared machine) or the unix socket in the session's 0700 temp dir that the
 * sandbox's forwarder pipes to Chromium's port inside the sandbox (`'remote'`: no TCP port on
 * the host any other local user could reach). Every consumer (the CDP proxy, the debugger
 * address, the runtime's own CDP client) connects through these helpers, so both paths share
 * their code.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';

export type DevtoolsEndpoint = { host: string; port: number } | { socketPath: string };

/** A fresh connection to the endpoint. */
export function connectDevtools(endpoint: DevtoolsEndpoint): Socket {
  return 'socketPath' in endpoint
    ? connect({ path: endpoint.socketPath })
    : connect({ host: endpoint.host, port: endpoint.port });
}

/**
 * The `Host` to send: Chromium refuses a Host that is not an IP or `localhost` (its DNS-rebinding
 * defence); behind the socket it listens on the sandbox's own loopback.
 */
export function devtoolsHost(endpoint: DevtoolsEndpoint): string {
  return 'socketPath' in endpoint ? 'localhost' : `${endpoint.host}:${endpoint.port}`;
}

/** `ws://<host>/<path>`; over a socket the URL's host is only the Host header (the connection is connectDevtools()). */
export function devtoolsWsUrl(endpoint: DevtoolsEndpoint, path: string): string {
  return `ws://${devtoolsHost(endpoint)}${path}`;
}

export interface DevtoolsAnswer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

/** One HTTP request to Chromium's `/json` surface; rejects on a connection failure or timeout. */
export function requestDevtools(
  endpoint: DevtoolsEndpoint,
  method: string,
  pathAndQuery: string,
  timeoutMs: number,
): Promise<DevtoolsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        ...('socketPath' in endpoint
          ? { socketPath: endpoint.socketPath }
          : { host: endpoint.host, port: endpoint.port }),
        method,
        path: pathAndQuery,
        headers: { host: devtoolsHost(endpoint) },
        signal: AbortSignal.timeout(timeoutMs),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 502,
            contentType: res.headers['content-type'],
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
