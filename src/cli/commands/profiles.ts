/** `remote-browser profiles list|get|create|rename|delete`: by id or by name. */
import type { Command } from 'commander';
import type { BrowserApi, Profile } from '../../browser-api/index.js';
import { withBrowserApi } from '../clients.js';
import { CliError } from '../errors.js';
import { act, type Runtime, withJson } from '../kit.js';
import type { Output } from '../output.js';

/** The profile named `target`, else the one with that id; a CliError naming it otherwise. */
async function resolveProfile(api: BrowserApi, target: string): Promise<Profile> {
  const byName = await api.profiles.findByName(target);
  if (byName) return byName;
  try {
    return await api.profiles.retrieve(target);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'NotFoundError' || name === 'RequestValidationError') {
      throw new CliError(`no profile named or with id "${target}"`, {
        code: 'not_found',
        hint: 'see `remote-browser profiles list`',
      });
    }
    throw error;
  }
}

function show(out: Output, profile: Profile): void {
  out.result(profile, () =>
    out.fields(Object.entries(profile).map(([key, value]) => [key, value] as [string, unknown])),
  );
}

export function register(program: Command, rt: Runtime): void {
  const profiles = program
    .command('profiles')
    .description('saved browser profiles (cookies, cache, optionally a pinned exit IP)');

  withJson(profiles.command('list').description('list profiles')).action(
    act(rt, async (out) =>
      withBrowserApi(rt.io, async (api) => {
        const list = await api.profiles.list();
        out.result(list, () =>
          out.table(
            list.map((p) => ({
              id: p.id,
              name: p.name,
              store_cache: p.store_cache,
              pin_ip: p.pin_ip,
              pinned: [p.pinned_country, p.pinned_region, p.pinned_city].filter(Boolean).join('/'),
            })),
            ['id', 'name', 'store_cache', 'pin_ip', 'pinned'],
          ),
        );
      }),
    ),
  );

  withJson(
    profiles.command('get').description('show one profile').argument('<name-or-id>', 'profile'),
  ).action(
    act(rt, async (out, [target]) =>
      withBrowserApi(rt.io, async (api) => show(out, await resolveProfile(api, target as string))),
    ),
  );

  withJson(
    profiles
      .command('create')
      .description('create a profile')
      .argument('<name>', 'unique name within the account')
      .option('--description <text>', 'free text')
      .option('--no-store-cache', 'do not persist cookies, storage and cache across sessions')
      .option('--pin-ip', 'pin the exit IP from the first session that uses it'),
  ).action(
    act(rt, async (out, [name], opts) =>
      withBrowserApi(rt.io, async (api) => {
        const profile = await api.profiles.create({
          name: name as string,
          store_cache: opts.storeCache !== false,
          pin_ip: Boolean(opts.pinIp),
          ...(typeof opts.description === 'string' ? { description: opts.description } : {}),
        });
        out.result(profile, () =>
          out.line(`${out.paint.green('created')} profile "${profile.name}" (${profile.id})`),
        );
      }),
    ),
  );

  withJson(
    profiles
      .command('rename')
      .description('rename a profile (and optionally change its description)')
      .argument('<name-or-id>', 'profile')
      .argument('<new-name>', 'new name')
      .option('--description <text>', 'new description'),
  ).action(
    act(rt, async (out, [target, newName], opts) =>
      withBrowserApi(rt.io, async (api) => {
        const profile = await resolveProfile(api, target as string);
        const updated = await api.profiles.update(profile.id, {
          name: newName as string,
          ...(typeof opts.description === 'string' ? { description: opts.description } : {}),
        });
        out.result(updated, () =>
          out.line(`renamed "${profile.name}" to "${updated.name}" (${updated.id})`),
        );
      }),
    ),
  );

  withJson(
    profiles.command('delete').description('delete a profile').argument('<name-or-id>', 'profile'),
  ).action(
    act(rt, async (out, [target]) =>
      withBrowserApi(rt.io, async (api) => {
        const profile = await resolveProfile(api, target as string);
        await api.profiles.delete(profile.id);
        out.result({ id: profile.id, name: profile.name, deleted: true }, () =>
          out.line(`${out.paint.green('deleted')} profile "${profile.name}" (${profile.id})`),
        );
      }),
    ),
  );
}
