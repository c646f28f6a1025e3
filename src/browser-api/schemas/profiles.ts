/** Schemas of `/profiles`. */
import { z } from 'zod';
import { TimestampSchema } from './vocabulary.js';

/** The longest profile name the service takes (longer is a 400). */
export const PROFILE_NAME_MAX_LENGTH = 100;
const name = z.string().min(1).max(PROFILE_NAME_MAX_LENGTH);

export const ProfileCreateParamsSchema = z.looseObject({
  name,
  description: z.string().optional(),
  store_cache: z.boolean().optional(),
  pin_ip: z.boolean().optional(),
});

export const ProfileUpdateParamsSchema = z.looseObject({
  name: name.optional(),
  description: z.string().optional(),
});

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
export const ProfileSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  created_at: TimestampSchema.optional(),
  pin_ip: z.boolean().optional(),
  store_cache: z.boolean().optional(),
  pinned_country: z.string().nullish(),
  pinned_region: z.string().nullish(),
  pinned_city: z.string().nullish(),
  pinned_isp: z.string().nullish(),
  pinned_zip: z.string().nullish(),
  pinned_connection_type: z.string().nullish(),
});
export type Profile = z.infer<typeof ProfileSchema>;
