/** `remote-browser notifications list|read`: the unread queue; reading one removes it. */
import type { Command } from 'commander';
import { withAccountApi } from '../clients.js';
import { CliError, usageError } from '../errors.js';
import { act, type Runtime, withJson } from '../kit.js';

export function register(program: Command, rt: Runtime): void {
  const notifications = program
    .command('notifications')
    .description('the unread notification queue');
  withJson(notifications.command('list').description('unread notifications')).action(
    act(rt, async (out) =>
      withAccountApi(rt.io, async (api) => {
        const list = await api.notifications.list();
        out.result(list, () => {
          if (list.length === 0) out.line(out.paint.dim('no unread notifications'));
          for (const n of list) {
            const { notification_id, ...rest } = n;
            out.line(`${out.paint.bold(notification_id)} ${JSON.stringify(rest)}`);
          }
        });
      }),
    ),
  );
  withJson(
    notifications
      .command('read')
      .description('mark notifications read (they leave the list)')
      .argument('[ids...]', 'notification ids')
      .option('--all', 'mark every unread notification read'),
  ).action(
    act(rt, async (out, [ids], opts) =>
      withAccountApi(rt.io, async (api) => {
        const given = ids as string[];
        if (opts.all && given.length) throw usageError('pass ids or --all, not both');
        if (!opts.all && given.length === 0)
          throw usageError('which notifications? pass ids or --all');
        const read: string[] = [];
        if (opts.all) {
          for await (const n of api.notifications.drain()) read.push(n.notification_id);
        } else {
          for (const id of given) {
            try {
              await api.notifications.markRead(id);
            } catch (error) {
              if ((error as Error).name === 'NotFoundError') {
                throw new CliError(`no unread notification ${id}`, {
                  code: 'not_found',
                  hint: 'see `remote-browser notifications list`',
                });
              }
              throw error;
            }
            read.push(id);
          }
        }
        out.result({ read }, () => out.line(`marked ${read.length} notification(s) read`));
      }),
    ),
  );
}
