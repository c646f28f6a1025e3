/** `/profiles`: saved browser profiles, unique by name within an account. */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, limitReached, notFound } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import type { Account, ProfileRecord } from './model.js';
import { type JsonObject, objectBody, optionalBoolean, optionalString } from './request-body.js';

/** A profile limit does not lift by waiting; the hint is to come back after deleting one. */
export const PROFILE_LIMIT_RETRY_AFTER_SECONDS = 60;
const MAX_NAME_LENGTH = 100;

export function profileView(profile: ProfileRecord) {
  const pinned = profile.pinned;
  return {
    id: profile.id,
    name: profile.name,
    description: profile.description,
    created_at: new Date(profile.createdAt).toISOString(),
    pin_ip: profile.pinIp,
    store_cache: profile.storeCache,
    ...(pinned
      ? {
          pinned_country: pinned.country,
          pinned_region: pinned.region,
          pinned_city: pinned.city,
          pinned_isp: pinned.isp,
          pinned_zip: pinned.zip,
          pinned_connection_type: pinned.connection_type,
        }
      : {}),
  };
}

function readName(body: JsonObject, required: boolean): string | undefined {
  const name = optionalString(body, 'name');
  if (name === undefined) {
    if (required) throw badRequest('name is required');
    return undefined;
  }
  const trimmed = name.trim();
  if (trimmed === '') throw badRequest('name must not be empty');
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw badRequest(`name must be at most ${MAX_NAME_LENGTH} characters`);
  }
  return trimmed;
}

/** Names are unique per account, compared exactly; a clash is a 409. */
function assertNameFree(ctx: BrowserServiceContext, account: Account, name: string, self?: string) {
  const clash = ctx.store.profilesOf(account.id).find((p) => p.name === name && p.id !== self);
  if (clash) throw conflict(`A profile named "${name}" already exists`);
}

function findProfile(ctx: BrowserServiceContext, account: Account, id: string): ProfileRecord {
  const profile = ctx.store.profile(account.id, id);
  if (!profile) throw notFound('Profile');
  return profile;
}

export function registerProfileRoutes(routes: RouteRegistrar, ctx: BrowserServiceContext): void {
  routes.add('POST', '/profiles', ({ req, body }) => {
    const account = authenticate(ctx, req);
    const fields = objectBody(body);
    const name = readName(fields, true) as string;
    const description = optionalString(fields, 'description') ?? '';
    const storeCache = optionalBoolean(fields, 'store_cache') ?? false;
    const pinIp = optionalBoolean(fields, 'pin_ip') ?? false;
    const count = ctx.store.profilesOf(account.id).length;
    const limit = account.limits.profiles;
    if (count >= limit) {
      throw limitReached(
        'profiles',
        count,
        limit,
        PROFILE_LIMIT_RETRY_AFTER_SECONDS,
        `Profile limit reached (${count} of ${limit}): delete a profile first`,
      );
    }
    assertNameFree(ctx, account, name);
    const profile: ProfileRecord = {
      id: randomUUID(),
      accountId: account.id,
      name,
      description,
      createdAt: ctx.clock.now(),
      pinIp,
      storeCache,
    };
    ctx.store.profiles.set(profile.id, profile);
    return { body: { data: profileView(profile) } };
  });

  routes.add('GET', '/profiles', ({ req }) => {
    const account = authenticate(ctx, req);
    return { body: { data: ctx.store.profilesOf(account.id).map(profileView) } };
  });

  routes.add('GET', '/profiles/:id', ({ req, params }) => {
    const profile = findProfile(ctx, authenticate(ctx, req), params.id as string);
    return { body: { data: profileView(profile) } };
  });

  routes.add('PATCH', '/profiles/:id', ({ req, params, body }) => {
    const account = authenticate(ctx, req);
    const profile = findProfile(ctx, account, params.id as string);
    const fields = objectBody(body);
    for (const createOnly of ['store_cache', 'pin_ip']) {
      if (fields[createOnly] !== undefined) {
        throw badRequest(`${createOnly} is set at creation; only name and description can change`);
      }
    }
    const name = readName(fields, false);
    const description = optionalString(fields, 'description');
    if (name !== undefined) {
      assertNameFree(ctx, account, name, profile.id);
      profile.name = name;
    }
    if (description !== undefined) profile.description = description;
    return { body: { data: profileView(profile) } };
  });

  routes.add('DELETE', '/profiles/:id', ({ req, params }) => {
    const profile = findProfile(ctx, authenticate(ctx, req), params.id as string);
    ctx.store.profiles.delete(profile.id);
    // Running sessions keep their browser; the cache dir goes when the last one ends.
    ctx.sessions.profileDeleted(profile);
    return { body: { data: { status: 'success' } } };
  });
}
