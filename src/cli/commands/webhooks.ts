/**
 * `remote-browser webhooks …`. `update`, `enable` and `disable` read, merge and PUT the whole
 * webhook (the service's PUT resets omitted fields), through the client's `update()`. The
 * signing secret is printed only with `--show-secrets`.
 */
import type { Command } from 'commander';
import type { AccountApi, Webhook } from '../../account-api/index.js';
import { withAccountApi } from '../clients.js';
import { CliError, usageError } from '../errors.js';
import { act, collect, type Options, type Runtime, withJson, withSecrets } from '../kit.js';
import type { Output } from '../output.js';

async function forWebhook<T>(id: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if ((error as Error).name === 'NotFoundError') {
      throw new CliError(`no webhook ${id}`, {
        code: 'not_found',
        hint: 'see `remote-browser webhooks list`',
      });
    }
    throw error;
  }
}

function idOf(webhook: Record<string, unknown>): string {
  for (const key of ['id', 'webhook_id', 'uuid']) {
    const value = webhook[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return '-';
}

function show(out: Output, webhook: Webhook): void {
  out.result(webhook, () =>
    out.fields([
      ['id', idOf(webhook)],
      ['url', webhook.url],
      ['events', webhook.events.join(', ')],
      ['description', webhook.description],
      ['enabled', webhook.enabled],
      ['last delivery', webhook.last_delivery],
      ['secret', (webhook as { secret?: string }).secret],
    ]),
  );
}

function events(opts: Options): string[] | undefined {
  const list = (opts.event as string[] | undefined)?.flatMap((e) => e.split(','));
  return list?.length ? list : undefined;
}

export function register(program: Command, rt: Runtime): void {
  const webhooks = program.command('webhooks').description('webhook endpoints of the account');
  const run = (
    fn: (api: AccountApi, out: Output, args: unknown[], opts: Options) => Promise<unknown>,
  ) => act(rt, (out, args, opts) => withAccountApi(rt.io, (api) => fn(api, out, args, opts)));

  withJson(webhooks.command('list').description('list webhooks')).action(
    run(async (api, out) => {
      const list = await api.webhooks.list();
      out.result(list, () =>
        out.table(
          list.map((w) => ({
            id: idOf(w),
            url: w.url,
            enabled: w.enabled === false ? out.paint.yellow('no') : 'yes',
            events: w.events.join(','),
            last_delivery: w.last_delivery
              ? `${w.last_delivery.status ?? '-'} ${w.last_delivery.response_code ?? ''}`.trim()
              : '-',
          })),
          ['id', 'url', 'enabled', 'events', 'last_delivery'],
        ),
      );
    }),
  );

  withJson(
    webhooks.command('get').description('show one webhook').argument('<id>', 'webhook id'),
  ).action(
    run(async (api, out, [id]) =>
      show(out, await forWebhook(id as string, () => api.webhooks.retrieve(id as string))),
    ),
  );

  withSecrets(
    withJson(
      webhooks
        .command('create')
        .description('register a webhook (its signing secret is shown once: use --show-secrets)')
        .argument('<url>', 'where deliveries go')
        .requiredOption(
          '--event <type>',
          'event type (see `webhooks event-types`); repeat for several',
          collect,
        )
        .option('--description <text>', 'free text (max 200 characters)')
        .option('--disabled', 'create it disabled'),
    ),
  ).action(
    run(async (api, out, [url], opts) => {
      const created = await api.webhooks.create({
        url: url as string,
        events: events(opts) ?? [],
        ...(typeof opts.description === 'string' ? { description: opts.description } : {}),
        ...(opts.disabled ? { enabled: false } : {}),
      });
      show(out, created);
      if (!out.mode.showSecrets && !out.mode.json) {
        out.note(
          '(secret hidden: it is shown only now; rerun with --show-secrets, or rotate-secret later)',
        );
      }
    }),
  );

  withJson(
    webhooks
      .command('update')
      .description('change a webhook; fields not given keep their value (read, merge, full PUT)')
      .argument('<id>', 'webhook id')
      .option('--url <url>', 'new URL')
      .option('--event <type>', 'replace the event types; repeat for several', collect)
      .option('--description <text>', 'new description'),
  ).action(
    run(async (api, out, [id], opts) => {
      const patch = {
        ...(typeof opts.url === 'string' ? { url: opts.url } : {}),
        ...(events(opts) ? { events: events(opts) } : {}),
        ...(typeof opts.description === 'string' ? { description: opts.description } : {}),
      };
      if (Object.keys(patch).length === 0)
        throw usageError('nothing to change: pass --url, --event or --description');
      show(out, await forWebhook(id as string, () => api.webhooks.update(id as string, patch)));
    }),
  );

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    withJson(
      webhooks
        .command(name)
        .description(`${name} a webhook (its other fields are kept)`)
        .argument('<id>', 'webhook id'),
    ).action(
      run(async (api, out, [id]) => {
        const sid = id as string;
        show(
          out,
          await forWebhook(sid, () =>
            enabled ? api.webhooks.enable(sid) : api.webhooks.disable(sid),
          ),
        );
      }),
    );
  }

  withJson(
    webhooks
      .command('delete')
      .description('delete a webhook and its secret (irreversible)')
      .argument('<id>', 'webhook id'),
  ).action(
    run(async (api, out, [id]) => {
      await forWebhook(id as string, () => api.webhooks.delete(id as string));
      out.result({ id, deleted: true }, () =>
        out.line(`${out.paint.green('deleted')} webhook ${id as string}`),
      );
    }),
  );

  withSecrets(
    withJson(
      webhooks
        .command('rotate-secret')
        .description('issue a new signing secret; the old one stays valid until the time printed')
        .argument('<id>', 'webhook id'),
    ),
  ).action(
    act(rt, async (out, [id]) => {
      // Checked before any call: a rotation whose secret is not shown loses it.
      if (!out.mode.showSecrets) {
        throw usageError(
          'the new secret is shown only once, so rotate-secret needs --show-secrets',
          'add --show-secrets (and keep the output out of logs)',
        );
      }
      return withAccountApi(rt.io, async (api) => {
        const rotation = await forWebhook(id as string, () =>
          api.webhooks.rotateSecret(id as string),
        );
        out.result(rotation, () =>
          out.fields([
            ['secret', rotation.secret],
            [
              'previous valid until',
              rotation.previous_secret_valid_until ?? 'no: the old secret stopped now',
            ],
          ]),
        );
      });
    }),
  );

  withJson(
    webhooks.command('event-types').description('event types a webhook can subscribe to'),
  ).action(
    run(async (api, out) => {
      const types = await api.webhooks.eventTypes();
      out.result(types, () =>
        out.table(
          types.map((t) => ({ type: t.type, category: t.category, description: t.description })),
          ['type', 'category', 'description'],
        ),
      );
    }),
  );
}
