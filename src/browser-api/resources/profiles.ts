import type { CallOptions } from '../../http/call-options.js';
import { isResponseValidationError } from '../../http/errors.js';
import { zod } from '../../http/lazy-schema.js';
import { idSegment } from '../../http/path.js';
import { parseWire, rejectField } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import {
  type Profile,
  type ProfileCreateParams,
  ProfileCreateParamsSchema,
  ProfileSchema,
  type ProfileUpdateParams,
  ProfileUpdateParamsSchema,
} from '../schemas/profiles.js';

export class Profiles extends Resource {
  /** 429 (`RateLimitError`) at the account's profile limit (10 by default). Not retried. */
  async create(body: ProfileCreateParams, opts: CallOptions = {}): Promise<Profile> {
    const what = 'profiles.create';
    return this.transport.request({
      ...opts,
      what,
      method: 'POST',
      path: '/profiles',
      body: parseWire(what, ProfileCreateParamsSchema, body),
      schema: ProfileSchema,
    });
  }

  async list(opts: CallOptions = {}): Promise<Profile[]> {
    return this.transport.request({
      ...opts,
      what: 'profiles.list',
      method: 'GET',
      path: '/profiles',
      schema: zod().array(ProfileSchema),
    });
  }

  /** 404 (`NotFoundError`) for an unknown id or another account's. */
  async retrieve(id: string, opts: CallOptions = {}): Promise<Profile> {
    const what = 'profiles.retrieve';
    return this.transport.request({
      ...opts,
      what,
      method: 'GET',
      path: `/profiles/${idSegment(what, 'id', id)}`,
      schema: ProfileSchema,
    });
  }

  /**
   * PATCH: only the keys sent change. Setting the same name and description twice gives the
   * same profile, so it is retried like an idempotent call.
   */
  async update(id: string, body: ProfileUpdateParams, opts: CallOptions = {}): Promise<Profile> {
    const what = 'profiles.update';
    const path = `/profiles/${idSegment(what, 'id', id)}`;
    const wire = parseWire(what, ProfileUpdateParamsSchema, body);
    if (Object.keys(wire).length === 0) {
      rejectField(what, 'body', 'must set at least one of name, description');
    }
    return this.transport.request({
      ...opts,
      what,
      method: 'PATCH',
      path,
      body: wire,
      idempotent: true,
      schema: ProfileSchema,
    });
  }

  /**
   * Deletes the profile; sessions already using it are unaffected. The success body is not
   * specified, so none is required: any 2xx means deleted.
   */
  async delete(id: string, opts: CallOptions = {}): Promise<void> {
    const what = 'profiles.delete';
    try {
      await this.transport.request({
        ...opts,
        what,
        method: 'DELETE',
        path: `/profiles/${idSegment(what, 'id', id)}`,
      });
    } catch (error) {
      // A 2xx without the `{ data }` wrapper still deleted the profile.
      if (!(isResponseValidationError(error) && error.field === 'data')) throw error;
    }
  }

  /** The profile with exactly this name (names are unique within an account), if any. */
  async findByName(name: string, opts: CallOptions = {}): Promise<Profile | undefined> {
    if (typeof name !== 'string' || name === '') {
      rejectField('profiles.findByName', 'name', 'must be a non-empty string');
    }
    return (await this.list(opts)).find((profile) => profile.name === name);
  }
}
