/** Schemas of `/profiles`. */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { TimestampSchema } from './vocabulary.js';

/** The longest profile name the service takes (longer is a 400). */
export const PROFILE_NAME_MAX_LENGTH = 100;
const name = lazySchema(() => zod().string().min(1).max(PROFILE_NAME_MAX_LENGTH));

export const ProfileCreateParamsSchema = lazySchema(() =>
  zod().looseObject({
    name,
    description: zod().string().optional(),
    store_cache: zod().boolean().optional(),
    pin_ip: zod().boolean().optional(),
  }),
);

export const ProfileUpdateParamsSchema = lazySchema(() =>
  zod().looseObject({
    name: name.optional(),
    description: zod().string().optional(),
  }),
);

export interface ProfileCreateParams {
  /** Unique within the account; 1 to 100 characters. */
  name: string;
  /** Free text. Default (server): empty. */
  description?: string;
  /** Persist cookies, local storage and cache across sessions. Default: the service's. */
  store_cache?: boolean;
  /** Pin the exit IP from the first session that uses the profile. Default: the service's. */
  pin_ip?: boolean;
}

/** `PATCH /profiles/{id}`: only the keys sent change. */
export interface ProfileUpdateParams {
  name?: string;
  description?: string;
}

/**
 * A saved profile. Only `id` and `name` are required: `store_cache` is called a create-time
 * option, and the `pinned_*` keys appear once a session has used the profile.
 */
export const ProfileSchema = lazySchema(() =>
  zod().looseObject({
    id: zod().string().min(1),
    name: zod().string(),
    description: zod().string().nullish(),
    created_at: TimestampSchema.optional(),
    pin_ip: zod().boolean().optional(),
    store_cache: zod().boolean().optional(),
    pinned_country: zod().string().nullish(),
    pinned_region: zod().string().nullish(),
    pinned_city: zod().string().nullish(),
    pinned_isp: zod().string().nullish(),
    pinned_zip: zod().string().nullish(),
    pinned_connection_type: zod().string().nullish(),
  }),
);
export type Profile = z.infer<typeof ProfileSchema>;
