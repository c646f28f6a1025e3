/** `remote-browser sessions list|get|create|end|reap|live`. */
import type { Command } from 'commander';
import type { BrowserApi } from '../../browser-api/index.js';
import { withBrowserApi } from '../clients.js';
import { CliError, usageError } from '../errors.js';
import { act, integer, oneOf, type Runtime, withJson, withSecrets } from '../kit.js';
import { openInBrowser } from '../open-url.js';
import type { Output } from '../output.js';
import { spinner } from '../progress.js';
import { targetingOf, withTargeting } from '../targeting.js';

const STATUSES = ['running', 'ended', 'all'];

export function notFoundSession(id: string): CliError {
  return new CliError(`no session ${id}`, {
    code: 'not_found',
    hint: 'ended sessions are kept 3 days; see `remote-browser sessions list --status all`',
  });
}

/** Runs `fn`; a 404 becomes "no session <id>". */
export async function forSession<T>(id: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if ((error as Error).name === 'NotFoundError') throw notFoundSession(id);
    throw error;
  }
}

export function register(program: Command, rt: Runtime): void {
  const sessions = program
    .command('sessions')
    .description('list, inspect, create, end and reap remote browser sessions');

  withJson(
    sessions
      .command('list')
      .description('list sessions (never prints cdp_url)')
      .option('--status <status>', `running, ended or all`, oneOf(STATUSES), 'all')
      .option('--limit <n>', 'at most this many sessions', integer('--limit')),
  ).action(
    act(rt, async (out, _args, opts) =>
      withBrowserApi(rt.io, async (api) => {
        const list = await api.sessions.list({
          status: opts.status as 'all',
          ...(opts.limit ? { limit: opts.limit as number } : {}),
        });
        out.result(list, () =>
          out.table(
            list.map((s) => ({
              id: s.id,
              status: colourStatus(out, s.status),
              created_at: s.created_at,
              country: (s.config as { country?: string } | undefined)?.country,
            })),
            ['id', 'status', 'created_at', 'country'],
          ),
        );
      }),
    ),
  );

  withSecrets(
    withJson(
      sessions
        .command('get')
        .description('show one session, with its live view while it runs')
        .argument('<id>', 'session id'),
    ),
  ).action(
    act(rt, async (out, [id], opts) =>
      withBrowserApi(rt.io, async (api) => {
        const sid = id as string;
        const session = await forSession(sid, () => api.sessions.retrieve(sid));
        const connection =
          session.status === 'running'
            ? await api.sessions.connection(sid).catch(() => undefined)
            : undefined;
        const shown = {
          ...JSON.parse(JSON.stringify(session)),
          ...(connection
            ? {
                live_view_url: connection.live_view_url,
                debugger_address: connection.debugger_address,
              }
            : {}),
          ...(opts.showSecrets && session.cdp_url ? { cdp_url: session.cdp_url } : {}),
        };
        out.result(shown, () =>
          out.fields([
            ['id', session.id],
            ['status', colourStatus(out, session.status)],
            ['created_at', session.created_at],
            ['ended_at', session.ended_at ?? undefined],
            ['config', session.config],
            ['live view', connection?.live_view_url],
            ['debugger', connection?.debugger_address],
            ['cdp_url', opts.showSecrets ? session.cdp_url : undefined],
          ]),
        );
      }),
    ),
  );

  withSecrets(
    withJson(
      withTargeting(
        sessions
          .command('create')
          .description(
            'start a session and leave it running; prints its id and live view (end it with `sessions end`)',
          ),
      ).option('--no-preflight', 'skip the targeting check before creating'),
    ),
  ).action(
    act(rt, async (out, _args, opts) =>
      withBrowserApi(
        rt.io,
        async (api) => {
          const { openSession } = await import('../../launch/index.js');
          const spin = spinner(out, 'creating a session…');
          let opened: Awaited<ReturnType<typeof openSession>>;
          try {
            opened = await openSession(
              { ...targetingOf(opts), api, preflight: opts.preflight !== false },
              'sessions create',
            );
          } finally {
            spin.stop();
          }
          const cdpUrl = opened.cdpUrl();
          await opened.lookedUp;
          await opened.finish(true);
          const { id, liveViewUrl, config } = opened.info;
          out.result(
            {
              id,
              live_view_url: liveViewUrl,
              config,
              ...(opts.showSecrets ? { cdp_url: cdpUrl } : {}),
            },
            () => {
              out.line(`${out.paint.green('created')} ${id}`);
              out.fields([
                ['live view', liveViewUrl],
                ['cdp_url', opts.showSecrets ? cdpUrl : undefined],
              ]);
              if (!opts.showSecrets) out.note('(cdp_url hidden: add --show-secrets to print it)');
            },
          );
        },
        { sessions: true },
      ),
    ),
  );

  withJson(
    sessions
      .command('end')
      .description('end sessions by id, or every running one with --all')
      .argument('[ids...]', 'session ids')
      .option('--all', 'end every running session of the account')
      .option('-y, --yes', 'do not ask before ending every session (scripts, CI)'),
  ).action(
    act(rt, async (out, [ids], opts) =>
      withBrowserApi(rt.io, async (api) => endSessions(rt, out, api, ids as string[], opts)),
    ),
  );

  withJson(
    sessions
      .command('reap')
      .description("end sessions this machine's earlier runs created and never ended (the ledger)")
      .option('--include-live', 'also end sessions of runs that are still alive'),
  ).action(
    act(rt, async (out, _args, opts) =>
      withBrowserApi(rt.io, async (api) => {
        const { reapSessions } = await import('../../launch/index.js');
        const spin = spinner(out, 'ending leftover sessions…');
        const result = await reapSessions({
          api,
          includeLiveProcesses: Boolean(opts.includeLive),
        }).finally(() => spin.stop());
        out.result(result, () => {
          out.line(
            `ended ${result.ended.length}, already gone ${result.alreadyGone.length}, failed ${result.failed.length}`,
          );
          for (const f of result.failed) out.line(`  ${f.id}: ${f.error}`);
        });
        return result.failed.length ? 1 : 0;
      }),
    ),
  );

  withJson(
    withSecrets(sessions.command('live'))
      .description("print a running session's live view URL, or open it with --open")
      .argument('<id>', 'session id')
      .option('--open', 'open it in the default browser'),
  ).action(
    act(rt, async (out, [id], opts) =>
      withBrowserApi(rt.io, async (api) => {
        const sid = id as string;
        const connection = await forSession(sid, () => api.sessions.connection(sid));
        const url = connection.live_view_url;
        if (connection.status !== 'running' || !url) {
          throw new CliError(`session ${sid} is ${connection.status}: no live view`, {
            hint: 'start one with `remote-browser sessions create`',
          });
        }
        if (opts.open) await openInBrowser(url);
        out.result({ id: sid, live_view_url: url }, () => out.line(url));
      }),
    ),
  );
}

async function endSessions(
  rt: Runtime,
  out: Output,
  api: BrowserApi,
  ids: string[],
  opts: Record<string, unknown>,
): Promise<number> {
  if (opts.all && ids.length > 0) throw usageError('pass session ids or --all, not both');
  if (!opts.all && ids.length === 0) {
    throw usageError('which sessions? pass ids, or --all for every running session');
  }
  let targets = ids;
  if (opts.all) {
    targets = (await api.sessions.list({ status: 'running' })).map((s) => s.id);
    if (targets.length === 0) {
      out.result({ ended: [], failed: [] }, () => out.line('no running sessions'));
      return 0;
    }
    if (!opts.yes) {
      if (!rt.io.confirm) {
        throw usageError(
          `refusing to end ${targets.length} running session(s) without confirmation`,
          'add --yes in scripts',
        );
      }
      if (!(await rt.io.confirm(`End ${targets.length} running session(s)?`))) {
        out.note('nothing ended');
        return 1;
      }
    }
  }
  const ended: string[] = [];
  const failed: { id: string; error: string }[] = [];
  const spin = spinner(out, `ending ${targets.length} session(s)…`);
  for (const id of targets) {
    try {
      await api.sessions.end(id);
      ended.push(id);
    } catch (error) {
      failed.push({
        id,
        error:
          (error as Error).name === 'NotFoundError' ? 'no such session' : (error as Error).message,
      });
    }
    spin.text(`ending sessions… ${ended.length + failed.length}/${targets.length}`);
  }
  spin.stop();
  if (failed.length === 1 && targets.length === 1 && failed[0]?.error === 'no such session') {
    throw notFoundSession(targets[0] as string);
  }
  out.result({ ended, failed }, () => {
    for (const id of ended) out.line(`${out.paint.green('ended')} ${id}`);
    for (const f of failed) out.line(`${out.paint.red('failed')} ${f.id}: ${f.error}`);
  });
  return failed.length ? 1 : 0;
}

function colourStatus(out: Output, status: string): string {
  return status === 'running' ? out.paint.green(status) : out.paint.dim(status);
}
