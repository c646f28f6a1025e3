/** `BrowserApi`: one typed client for every endpoint of the browser service (browser-api.md). */
import type { Dispatcher } from 'undici';
import { BROWSER_API_PATH, type BrowserConfigInput, resolveBrowserConfig } from '../http/config.js';
import { notFoundHintFor } from '../http/hints.js';
import type { RetryOptions } from '../http/retry-policy.js';
import { Transport } from '../http/transport.js';
import { unwrapData } from './envelope.js';
import { checkBrowserOptions } from './options.js';
import { Configurations } from './resources/configurations.js';
import { Locations } from './resources/locations.js';
import { Profiles } from './resources/profiles.js';
import { ProxyResource } from './resources/proxy.js';
import { Sessions } from './resources/sessions.js';
import { Tools } from './resources/tools.js';

export interface BrowserApiOptions extends BrowserConfigInput {
  /** Default per-call timeout in ms, retries included. Default 60000; `0` or `Infinity` for none. */
  timeout?: number | undefined;
  /**
   * Retry policy of idempotent calls (GET, DELETE, validate, profile update). Session creation
   * and page actions are never retried. Defaults: 2 retries, 500 ms base, Retry-After honoured
   * up to 60 s.
   */
  retry?: RetryOptions | undefined;
  /** undici dispatcher (proxies, tests). Default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher | undefined;
  /**
   * Largest JSON response body read, in bytes: a longer one fails the call with a
   * ResponseTooLargeError instead of filling memory. Default 16 MiB (16777216).
   */
  maxResponseBytes?: number | undefined;
}

const accountKeys = new WeakMap<BrowserApi, () => string>();

/**
 * Which account a client acts for (origin and a hash of its token, never the token): the
 * launch's slot queue counts sessions per account, across the clients of one process.
 */
export function accountKeyOf(api: BrowserApi): string {
  return accountKeys.get(api)?.() ?? api.origin;
}

export class BrowserApi {
  /** The service origin in use, without the API path. */
  readonly origin: string;
  readonly sessions: Sessions;
  readonly profiles: Profiles;
  readonly locations: Locations;
  readonly proxy: ProxyResource;
  readonly configurations: Configurations;
  readonly tools: Tools;
  readonly #transport: Transport;

  /**
   * Throws a ConfigurationError naming the env var when the token or URL is missing, and a
   * RequestValidationError naming the option when one is malformed (`token: 42`, `timeout: -1`).
   */
  constructor(options: BrowserApiOptions = {}) {
    checkBrowserOptions(options);
    const config = resolveBrowserConfig(options);
    this.origin = config.baseUrl;
    let key: string | undefined;
    // node:crypto loads on first use (a launch), not with the entry.
    accountKeys.set(this, () => {
      key ??= `${config.baseUrl} ${process
        .getBuiltinModule('node:crypto')
        .createHash('sha256')
        .update(config.token)
        .digest('hex')
        .slice(0, 16)}`;
      return key;
    });
    this.#transport = new Transport({
      service: 'browser',
      origin: config.baseUrl,
      apiPath: BROWSER_API_PATH,
      authorization: `Bearer ${config.token}`,
      payloadOf: unwrapData,
      timeout: options.timeout,
      retry: options.retry,
      dispatcher: options.dispatcher,
      maxResponseBytes: options.maxResponseBytes,
      // Routes without an identifier: a 404 there means the URL is not the API.
      notFoundHint: notFoundHintFor('browser', `${config.baseUrl}${BROWSER_API_PATH}`, [
        '/sessions',
        '/sessions-async',
        '/profiles',
        '/proxy/options',
        '/configurations/validate',
        '/locations/*',
        '/tools/*',
      ]),
    });
    this.sessions = new Sessions(this.#transport, config.proxyPassword);
    this.profiles = new Profiles(this.#transport);
    this.locations = new Locations(this.#transport);
    this.proxy = new ProxyResource(this.#transport);
    this.configurations = new Configurations(this.#transport);
    this.tools = new Tools(this.#transport);
  }

  /** Releases pooled connections. Sessions are not ended: they belong to the caller. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}
