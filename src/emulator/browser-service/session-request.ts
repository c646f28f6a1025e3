/** Turns a create body into a launch request, or the error the create answers with. */

import { badRequest, notFound } from '../server/http-error.js';
import { objectBody } from '../server/wire.js';
import type { BrowserServiceContext } from './context.js';
import type { Account } from './model.js';
import { issuesMessage, type ResolvedRequest, resolveSessionRequest } from './targeting.js';

/** 404 for an unknown `profile_id` (like any other id of the account); 400 for every other issue. */
export function resolveCreate(
  ctx: BrowserServiceContext,
  account: Account,
  body: unknown,
): ResolvedRequest {
  const { resolved, issues } = resolveSessionRequest(objectBody(body), {
    account,
    findProfile: (id) => ctx.store.profile(account.id, id),
    requirePassword: true,
  });
  if (issues.some((i) => i.code === 'unknown_profile')) throw notFound('Profile');
  if (issues.length > 0) throw badRequest(issuesMessage(issues));
  return resolved;
}
