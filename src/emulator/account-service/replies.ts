/**
 * The account service's error bodies, which differ from the browser service's flat `{error}`:
 * 400 is `{field: [messages]}`, 403 is `{detail}`, 402/404/429 are `{error}`. Routes throw
 * `AccountReply` and the wrapper turns it into the answer. No message ever contains a
 * credential.
 */
import type { Reply, RouteContext, RouteHandler } from '../router.js';

export class AccountReply extends Error {
  override name = 'AccountReply';
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`account service ${status}`);
  }

  toReply(): Reply {
    return { status: this.status, body: this.body, headers: this.headers };
  }
}

export type FieldErrors = Record<string, string[]>;

export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  const list = errors[field] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[field] = list;
}

export const badRequest = (errors: FieldErrors) => new AccountReply(400, errors);

/** The 401 body: `{detail}` naming the expected scheme, never echoing what was sent. */
export const unauthorized = () =>
  new AccountReply(
    401,
    {
      detail:
        'Authentication credentials were not provided or are invalid. Send the header "Authorization: x-api-key <API_KEY>" with the key from the Profile section of the dashboard.',
    },
    { 'www-authenticate': 'x-api-key' },
  );

export const notPurchased = () =>
  new AccountReply(403, {
    detail:
      'The query service requires at least one completed credit-pack purchase on this account.',
  });

export const notFound = () => new AccountReply(404, { error: 'Not found' });

export const insufficientCredits = (required: number, available: number) =>
  new AccountReply(402, {
    error: `Insufficient credits: ${required} required, ${available} available.`,
  });

export const rateLimited = (what: string, limit: number, retryAfterSeconds: number) =>
  new AccountReply(
    429,
    {
      error: `Rate limit exceeded: at most ${limit} ${what} requests per minute. Retry after ${retryAfterSeconds} s.`,
      retry_after: retryAfterSeconds,
    },
    { 'retry-after': String(retryAfterSeconds) },
  );

/** Runs a handler, answering thrown `AccountReply`s with their own status and body. */
export function guarded(handler: (ctx: RouteContext) => Promise<Reply> | Reply): RouteHandler {
  return async (ctx) => {
    try {
      return await handler(ctx);
    } catch (error) {
      if (error instanceof AccountReply) return error.toReply();
      throw error;
    }
  };
}
