/**
 * Turns any failure into one redacted line and one hint, and an exit code: 2 for a wrong
 * invocation, 1 for everything else. Library errors are recognised by `name` (stable across
 * copies of the library) so this file loads none of them.
 */

export interface Described {
  /** Stable machine-readable kind for `--json` errors. */
  code: string;
  message: string;
  hint?: string | undefined;
  exitCode: number;
  status?: number | undefined;
}

/** A failure the CLI words itself (a name not found, a refused action, a usage mistake). */
export class CliError extends Error {
  override name = 'CliError';
  readonly code: string;
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { code?: string; hint?: string; exitCode?: number } = {}) {
    super(message);
    this.code = options.code ?? 'failed';
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** A wrong invocation found after parsing (a bad flag value): exit code 2. */
export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, { code: 'usage', exitCode: 2, ...(hint ? { hint } : {}) });
}

const EMULATOR_HINT =
  'is the service up? For a local emulator run `remote-browser emulator` and export the lines it prints';

interface Failure extends Error {
  status?: number;
  code?: string;
  field?: string;
  cause?: unknown;
  body?: unknown;
  method?: string;
  path?: string;
}

/** Error codes anywhere in the cause chain (undici nests system errors, AggregateErrors). */
function causeCodes(error: unknown, depth = 0): string[] {
  if (!error || typeof error !== 'object' || depth > 5) return [];
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((x) => causeCodes(x, depth + 1)) : [];
  return [...own, ...nested, ...causeCodes(e.cause, depth + 1)];
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? text).trim();
}

/** The message without the library's own "what:" prefixes that repeat the command. */
function tail(message: string): string {
  return firstLine(message);
}

export function describeError(error: unknown): Described {
  const described = describeOnce(error);
  // The library's own hint (what to change in the URL) is more precise than ours and already
  // ends its message: show it once, as the hint.
  const own = (error as { hint?: unknown } | null)?.hint;
  if (typeof own === 'string' && described.message.includes(own)) {
    described.message = described.message.replace(`. ${own}`, '').replace(own, '').trim();
    described.hint = own;
  }
  return described;
}

function describeOnce(error: unknown): Described {
  if (error instanceof CliError) {
    return { code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode };
  }
  const e = (error instanceof Error ? error : new Error(String(error))) as Failure;
  const codes = causeCodes(e);
  switch (e.name) {
    case 'ConfigurationError':
      return { code: 'configuration', message: firstLine(e.message), exitCode: 1 };
    case 'RequestValidationError':
      return { code: 'invalid_request', message: tail(e.message), exitCode: 2 };
    case 'AuthenticationError': {
      const account = (e.path ?? '').includes('/api/v2/base');
      return {
        code: 'unauthorized',
        status: 401,
        message:
          `${e.method ?? ''} ${e.path ?? ''} → 401: the ${account ? 'account API key' : 'browser service token'} was refused`.trim(),
        hint: account
          ? 'copy the API key from the Profile section of the account dashboard into REMOTE_BROWSER_API_KEY'
          : "tokens are valid for 7 days: copy the current one from the dashboard's browser page into REMOTE_BROWSER_TOKEN",
        exitCode: 1,
      };
    }
    case 'PermissionDeniedError':
      return {
        code: 'forbidden',
        status: 403,
        message: tail(e.message),
        hint: 'the query endpoints need a completed credit-pack purchase on the account',
        exitCode: 1,
      };
    case 'PaymentRequiredError':
      return {
        code: 'insufficient_credits',
        status: 402,
        message: tail(e.message),
        hint: 'check `remote-browser balance`, then ask fewer questions or platforms, or buy credits',
        exitCode: 1,
      };
    case 'NotFoundError':
      return {
        code: 'not_found',
        status: 404,
        message: tail(e.message),
        hint: looksLikeNotTheApi(e)
          ? 'the URL answers but not as the API: set the service origin (e.g. https://host), without the /api/v2 path'
          : 'ended sessions are kept 3 days; list what exists with the `list` subcommand',
        exitCode: 1,
      };
    case 'RateLimitError':
      return {
        code: 'rate_limited',
        status: 429,
        message: tail(e.message),
        hint: 'a limit of the account is reached: end sessions (`remote-browser sessions list --status running`) or delete profiles, or wait',
        exitCode: 1,
      };
    case 'ResponseValidationError':
      return {
        code: 'not_the_api',
        message: tail(e.message),
        hint: 'the URL answers but not as this API: check REMOTE_BROWSER_URL / REMOTE_BROWSER_ACCOUNT_URL point at the service origin',
        exitCode: 1,
      };
    case 'PreflightError':
      return {
        code: 'invalid_targeting',
        message: tail(e.message),
        hint: 'check the targeting with `remote-browser validate` and the `locations` commands',
        exitCode: 1,
      };
    case 'TimeoutError':
      return {
        code: 'timeout',
        message: tail(e.message),
        hint: 'the service did not answer in time; try again or raise --timeout where offered',
        exitCode: 1,
      };
    case 'AbortError':
      return { code: 'interrupted', message: 'interrupted', exitCode: 1 };
  }
  if (codes.includes('EADDRINUSE')) {
    return {
      code: 'address_in_use',
      message: firstLine(e.message),
      hint: 'the port is taken (another emulator?): pick another with --port, or --port 0 for a free one',
      exitCode: 1,
    };
  }
  if (codes.includes('ECONNREFUSED')) {
    return {
      code: 'connection_refused',
      message: firstLine(e.message),
      hint: EMULATOR_HINT,
      exitCode: 1,
    };
  }
  if (codes.some((c) => /SSL|TLS|EPROTO|CERT|ECONNRESET|HPE_/.test(c))) {
    return {
      code: 'tls_mismatch',
      message: firstLine(e.message),
      hint: 'the URL scheme does not match the server: http:// for the local emulator, https:// for the hosted service',
      exitCode: 1,
    };
  }
  if (codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN')) {
    return {
      code: 'unknown_host',
      message: firstLine(e.message),
      hint: 'check the host name in REMOTE_BROWSER_URL / REMOTE_BROWSER_ACCOUNT_URL',
      exitCode: 1,
    };
  }
  if (typeof e.status === 'number') {
    return { code: 'api_error', status: e.status, message: tail(e.message), exitCode: 1 };
  }
  if (e.name === 'ConnectionError') {
    return {
      code: 'connection_failed',
      message: tail(e.message),
      hint: EMULATOR_HINT,
      exitCode: 1,
    };
  }
  return { code: 'failed', message: firstLine(e.message || String(error)), exitCode: 1 };
}

/** A 404 whose body is not the API's JSON error (an HTML page, a proxy's text). */
function looksLikeNotTheApi(e: Failure): boolean {
  const body = e.body;
  if (body && typeof body === 'object') return false;
  return typeof body === 'string' && /<html|<!doctype|cannot get/i.test(body);
}
