/**
 * The two clients, built from the CLI's environment and loaded only when a command needs one
 * (so `--help` loads neither). Every missing variable is named in one error, with where its
 * value is found, instead of one per run.
 */
import type { AccountApi } from '../account-api/index.js';
import type { BrowserApi } from '../browser-api/index.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';

const WHERE: Record<string, string> = {
  REMOTE_BROWSER_URL: 'the browser service origin',
  REMOTE_BROWSER_TOKEN: 'dashboard, browser page; valid 7 days',
  REMOTE_BROWSER_PROXY_PASSWORD: 'dashboard, proxy settings',
  REMOTE_BROWSER_ACCOUNT_URL: 'the account service origin',
  REMOTE_BROWSER_API_KEY: 'dashboard, Profile section',
};

/** Throws one CliError naming every unset variable of `names`. */
export function requireEnv(io: CliIo, names: string[]): void {
  const missing = names.filter((name) => !io.env[name]?.trim());
  if (missing.length === 0) return;
  throw new CliError(
    `missing ${missing.map((name) => `${name} (${WHERE[name] ?? 'see https://github.com/remote-browser/remote-browser/blob/main/docs/cli.md'})`).join(' and ')}`,
    {
      code: 'configuration',
      hint: 'for a local emulator run `remote-browser emulator --write-env .env` and `set -a; . ./.env`',
    },
  );
}

export interface BrowserClientOptions {
  /** The command creates sessions, so the proxy password is needed too. */
  sessions?: boolean;
}

export async function browserApi(
  io: CliIo,
  options: BrowserClientOptions = {},
): Promise<BrowserApi> {
  requireEnv(io, [
    'REMOTE_BROWSER_URL',
    'REMOTE_BROWSER_TOKEN',
    ...(options.sessions ? ['REMOTE_BROWSER_PROXY_PASSWORD'] : []),
  ]);
  const { BrowserApi } = await import('../browser-api/index.js');
  return new BrowserApi({
    baseUrl: io.env.REMOTE_BROWSER_URL,
    token: io.env.REMOTE_BROWSER_TOKEN,
    proxyPassword: io.env.REMOTE_BROWSER_PROXY_PASSWORD,
  });
}

export async function accountApi(io: CliIo): Promise<AccountApi> {
  requireEnv(io, ['REMOTE_BROWSER_ACCOUNT_URL', 'REMOTE_BROWSER_API_KEY']);
  const { AccountApi } = await import('../account-api/index.js');
  return new AccountApi({
    baseUrl: io.env.REMOTE_BROWSER_ACCOUNT_URL,
    apiKey: io.env.REMOTE_BROWSER_API_KEY,
  });
}

/** Runs `body` with a client and closes it afterwards. */
export async function withBrowserApi<T>(
  io: CliIo,
  body: (api: BrowserApi) => Promise<T>,
  options?: BrowserClientOptions,
): Promise<T> {
  const api = await browserApi(io, options);
  try {
    return await body(api);
  } finally {
    await api.close();
  }
}

export async function withAccountApi<T>(
  io: CliIo,
  body: (api: AccountApi) => Promise<T>,
): Promise<T> {
  const api = await accountApi(io);
  try {
    return await body(api);
  } finally {
    await api.close();
  }
}
