/**
 * Waiting for an asynchronous create. The spec shows only `request_id`: the poll's body and its
 * states are "not shown". So the done-test reads the poll tolerantly instead of betting on one
 * shape:
 * - done when an object with a string `id` and a `ws(s)://` `cdp_url` is found, either the poll
 *   body itself or an object directly inside it (e.g. `session`, `result` or `data`);
 * - failed when the body's `status` is `failed`, `error`, `cancelled`/`canceled` or `rejected`,
 *   or it carries a non-empty `error` string: an `AsyncSessionError` with that text;
 * - anything else (`pending`, `queued`, `creating`, ...) is still pending.
 * HTTP errors of the poll itself (404 for an unknown id, 401) end the wait at once.
 */
import type { CallOptions } from '../../http/call-options.js';
import { RemoteBrowserError } from '../../http/errors.js';
import { poll } from '../../http/polling.js';
import { hideCdpUrl } from '../cdp-url.js';
import type { AsyncSessionRequest, SessionCreated } from '../schemas/sessions.js';

export interface WaitForAsyncOptions extends CallOptions {
  /** Milliseconds for the whole wait, every poll included. Default 120000; 0 waits forever. */
  timeout?: number | undefined;
  /** Pause between polls in ms. Default 1000. */
  intervalMs?: number | undefined;
}

/** The asynchronous creation finished without a session; `request` is the last poll body. */
export class AsyncSessionError extends RemoteBrowserError {
  override name = 'AsyncSessionError';
  readonly requestId: string;
  readonly request: AsyncSessionRequest;
  /**
   * The HTTP status the synchronous create would have answered (e.g. 429 at the session limit),
   * when the poll body carries one as `error_status` (the emulator does; the spec shows nothing).
   */
  readonly status: number | undefined;

  constructor(requestId: string, request: AsyncSessionRequest, reason: string) {
    const status = (request as { error_status?: unknown }).error_status;
    super(`sessions.waitForAsync(${requestId}): the creation failed: ${reason}`);
    this.requestId = requestId;
    this.request = request;
    this.status = typeof status === 'number' ? status : undefined;
  }

  protected override details(): Record<string, unknown> {
    return { requestId: this.requestId, status: this.status, request: this.request };
  }
}

const FAILED = new Set([
  'failed',
  'failure',
  'error',
  'errored',
  'cancelled',
  'canceled',
  'rejected',
]);

type Created = SessionCreated & Record<string, unknown>;

function asSession(value: unknown): Created | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  return typeof record.id === 'string' &&
    record.id !== '' &&
    typeof record.cdp_url === 'string' &&
    /^wss?:\/\//i.test(record.cdp_url)
    ? (record as Created)
    : undefined;
}

/** The created session inside a poll body, if there is one yet. */
export function sessionOf(request: AsyncSessionRequest): SessionCreated | undefined {
  const direct = asSession(request);
  if (direct) return direct;
  for (const value of Object.values(request)) {
    const inner = asSession(value);
    if (inner) return inner;
  }
  return undefined;
}

/** Why a poll body says the creation failed, or undefined while it may still succeed. */
export function failureOf(request: AsyncSessionRequest): string | undefined {
  const error = (request as { error?: unknown }).error;
  if (typeof error === 'string' && error !== '') return error;
  const status = typeof request.status === 'string' ? request.status.toLowerCase() : undefined;
  if (status && FAILED.has(status)) return `status "${request.status}"`;
  return undefined;
}

export async function waitForAsync(
  retrieve: (opts: CallOptions) => Promise<AsyncSessionRequest>,
  requestId: string,
  options: WaitForAsyncOptions,
): Promise<SessionCreated> {
  const what = `sessions.waitForAsync(${requestId})`;
  const last = await poll((opts) => retrieve(opts), {
    what,
    signal: options.signal,
    timeout: options.timeout ?? 120_000,
    intervalMs: options.intervalMs ?? 1000,
    isDone: (request) => sessionOf(request) !== undefined || failureOf(request) !== undefined,
  });
  const session = sessionOf(last);
  if (!session) throw new AsyncSessionError(requestId, last, failureOf(last) ?? 'no session');
  // Keep the session fields the spec documents for a create, plus whatever came with them.
  return hideCdpUrl({ ...session, status: session.status ?? 'running' });
}
