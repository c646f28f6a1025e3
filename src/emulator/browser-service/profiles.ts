/** `/profiles`: saved browser profiles, unique by name within an account. */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  PROFILE_NAME_MAX_LENGTH,
  ProfileCreateParamsSchema,
  ProfileSchema,
  ProfileUpdateParamsSchema,
} from '../../browser-api/schemas/profiles.js';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { conflict, limitReached, notFound } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { data, parseBody } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import type { Account, ProfileRecord } from './model.js';

/** A profile limit does not lift by waiting; the hint is to come back after deleting one. */
export const PROFILE_LIMIT_RETRY_AFTER_SECONDS = 60;

/** The service's rule beyond the client's: a name is trimmed, and blank after trimming is refused. */
const trimmedName = () => zod().string().trim().min(1).max(PROFILE_NAME_MAX_LENGTH);
const CreateSchema = lazySchema(() => ProfileCreateParamsSchema.extend({ name: trimmedName() }));
/** `store_cache` and `pin_ip` are set at creation only. */
const UpdateSchema = lazySchema(() =>
  ProfileUpdateParamsSchema.extend({ name: trimmedName().optional() }).superRefine((body, ctx) => {
    for (const createOnly of ['store_cache', 'pin_ip']) {
      if (body[createOnly] === undefined) continue;
      ctx.addIssue({
        code: 'custom',
        path: [createOnly],
        message: 'is set at creation; only name and description can change',
      });
    }
  }),
);

export function profileView(profile: ProfileRecord): z.input<typeof ProfileSchema> {
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
    const fields = parseBody(CreateSchema, body);
    const {
      name,
      description = '',
      store_cache: storeCache = false,
      pin_ip: pinIp = false,
    } = fields;
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
    return data(ProfileSchema, profileView(profile));
  });

  routes.add('GET', '/profiles', ({ req }) => {
    const account = authenticate(ctx, req);
    return data(zod().array(ProfileSchema), ctx.store.profilesOf(account.id).map(profileView));
  });

  routes.add('GET', '/profiles/:id', ({ req, params }) => {
    const profile = findProfile(ctx, authenticate(ctx, req), params.id as string);
    return data(ProfileSchema, profileView(profile));
  });

  routes.add('PATCH', '/profiles/:id', ({ req, params, body }) => {
    const account = authenticate(ctx, req);
    const profile = findProfile(ctx, account, params.id as string);
    const { name, description } = parseBody(UpdateSchema, body);
    if (name !== undefined) {
      assertNameFree(ctx, account, name, profile.id);
      profile.name = name;
    }
    if (description !== undefined) profile.description = description;
    return data(ProfileSchema, profileView(profile));
  });

  routes.add('DELETE', '/profiles/:id', ({ req, params }) => {
    const profile = findProfile(ctx, authenticate(ctx, req), params.id as string);
    ctx.store.profiles.delete(profile.id);
    // Running sessions keep their browser; the cache dir goes when the last one ends.
    ctx.sessions.profileDeleted(profile);
    // The spec shows no body for a profile's delete (the client reads none): as for a session.
    return { body: { data: { status: 'success' } } };
  });
}
