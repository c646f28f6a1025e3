/** A BrowserApi wired to a loopback test server, with fast retries. */
import { BrowserApi, type BrowserApiOptions } from '../../src/browser-api/index.js';
import {
  json,
  type RecordedRequest,
  startTestServer,
  type TestServer,
} from '../helpers/http-server.js';

export const TOKEN = 'unit-browser-token-abc123';
export const PROXY_PASSWORD = 'unit-proxy-password-xyz789';

export interface ApiFixture {
  server: TestServer;
  api: BrowserApi;
  /** A client with other options on the same server (closed by `close`). */
  client(options?: BrowserApiOptions): BrowserApi;
  close(): Promise<void>;
}

export async function startApi(options: BrowserApiOptions = {}): Promise<ApiFixture> {
  const server = await startTestServer();
  const clients: BrowserApi[] = [];
  const client = (extra: BrowserApiOptions = {}) => {
    const api = new BrowserApi({
      token: TOKEN,
      baseUrl: server.origin,
      proxyPassword: PROXY_PASSWORD,
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
      ...options,
      ...extra,
    });
    clients.push(api);
    return api;
  };
  return {
    server,
    api: client(),
    client,
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
    },
  };
}

/** `{ data }` success body. */
export const ok = (data: unknown) => json(200, { data });

/** The request's path after the API prefix, with its query. */
export function wirePath(req: RecordedRequest | undefined): string {
  return (req?.url ?? '').replace(/^\/api\/v2\/browser/, '');
}

export function wireBody(req: RecordedRequest | undefined): unknown {
  return req?.body ? JSON.parse(req.body) : undefined;
}

export const CDP_URL = 'wss://cdp.example.test/session/s-1?token=cdp-access-token-secret-42';

export const CONFIG = {
  country: 'us',
  protocol: 'http',
  connection_type: 'residential',
  session_type: 'sticky',
  filter_mode: 'quality',
  quality_filter_enabled: true,
  ipv4_only: false,
};
