/**
 * The account service's error bodies, which differ from the browser service's flat `{error}`:
 * 400 is `{field: [messages]}`, 403 is `{detail}`, 402/404/429 are `{error}`. Routes throw
 * the emulator's one `HttpError`, worded here. No message ever contains a credential.
 */
import { HttpError } from '../server/http-error.js';

/** An answer of the account service: its status, and its body as the service words it. */
const reply = (status: number, body: unknown, headers?: Record<string, string>) =>
  HttpError.worded(status, body, headers);

export type FieldErrors = Record<string, string[]>;

export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  const list = errors[field] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[field] = list;
}

export const badRequest = (errors: FieldErrors) => reply(400, errors);

/** The 401 body: `{detail}` naming the expected scheme, never echoing what was sent. */
export const unauthorized = () =>
  reply(
    401,
    {
      detail:
        'Authentication credentials were not provided or are invalid. Send the header "Authorization: x-api-key <API_KEY>" with the key from the Profile section of the dashboard.',
    },
    { 'www-authenticate': 'x-api-key' },
  );

export const notPurchased = () =>
  reply(403, {
    detail:
      'The query service requires at least one completed credit-pack purchase on this account.',
  });

export const notFound = () => reply(404, { error: 'Not found' });

export const insufficientCredits = (required: number, available: number) =>
  reply(402, {
    error: `Insufficient credits: ${required} required, ${available} available.`,
  });

export const rateLimited = (what: string, limit: number, retryAfterSeconds: number) =>
  reply(
    429,
    {
      error: `Rate limit exceeded: at most ${limit} ${what} requests per minute. Retry after ${retryAfterSeconds} s.`,
      retry_after: retryAfterSeconds,
    },
    { 'retry-after': String(retryAfterSeconds) },
  );
