/**
 * What the Transport tests share: one loopback service per file, and a browser-service
 * Transport on it per test, closed after each test along with the service's request log.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { unwrapData } from '../../src/browser-api/envelope.js';
import { notFoundHintFor } from '../../src/http/hints.js';
import { Transport } from '../../src/http/transport.js';
import { startTestServer, type TestServer } from '../helpers/http-server.js';

type TransportOptions = ConstructorParameters<typeof Transport>[0];

export interface TransportHarness {
  /** The file's service (started before its first test). */
  readonly server: TestServer;
  /** A Transport on `server` with the file's defaults, `options` on top; closed after the test. */
  browserTransport(options?: Partial<TransportOptions>): Transport;
}

/** `token` signs every call; `defaults` are the file's other Transport options. */
export function useBrowserTransport(
  token: string,
  defaults: Partial<TransportOptions> = {},
): TransportHarness {
  let server: TestServer | undefined;
  let transport: Transport | undefined;
  const started = (): TestServer => {
    if (!server) throw new Error('the test server starts in beforeAll');
    return server;
  };
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());
  afterEach(async () => {
    await transport?.close();
    transport = undefined;
    if (server) server.requests.length = 0;
  });
  return {
    get server() {
      return started();
    },
    browserTransport(options = {}) {
      transport = new Transport({
        service: 'browser',
        origin: started().origin,
        apiPath: '/api/v2/browser',
        authorization: `Bearer ${token}`,
        payloadOf: unwrapData,
        notFoundHint: notFoundHintFor('browser', `${started().origin}/api/v2/browser`, []),
        ...defaults,
        ...options,
      });
      return transport;
    },
  };
}
