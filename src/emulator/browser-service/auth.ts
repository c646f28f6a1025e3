/**
 * Bearer-token authentication of the browser service. Messages tell the caller what to do and
 * never repeat what was sent.
 */
import type { IncomingMessage } from 'node:http';
import { unauthorized } from '../server/http-error.js';
import type { BrowserServiceContext } from './context.js';
import type { Account } from './model.js';

const WHERE = "copy the current token from the dashboard's browser page";

export function authenticate(ctx: BrowserServiceContext, req: IncomingMessage): Account {
  const header = req.headers.authorization;
  if (!header) {
    throw unauthorized(
      `Missing Authorization header: send "Authorization: Bearer <token>" (${WHERE})`,
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw unauthorized(`Malformed Authorization header: expected "Bearer <token>" (${WHERE})`);
  }
  const result = ctx.store.checkToken(match[1] as string);
  if (result.kind === 'expired') {
    throw unauthorized(
      `The browser token has expired (tokens are valid for 7 days): ${WHERE} again`,
    );
  }
  if (result.kind === 'invalid') throw unauthorized(`Invalid browser token: ${WHERE}`);
  return result.account;
}
