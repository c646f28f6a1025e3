import { BrowserApi } from '../../browser-api/index.js';
import { reapSessions } from '../../launch/reap.js';
import { type Command, table, UsageError } from '../command.js';

const STATUSES = ['running', 'ended', 'all'];

export const sessionsCommand: Command = {
  name: 'sessions',
  summary: 'List, end, or reap remote browser sessions',
  usage:
    'remote-browser sessions list [--status running|ended|all] [--limit N] | end <id> | reap [--include-live] [--json]',
  flags: {
    status: { type: 'string', description: 'With `list`: running, ended or all', default: 'all' },
    limit: { type: 'string', description: 'With `list`: at most this many sessions' },
    'include-live': {
      type: 'boolean',
      description: 'With `reap`: also end sessions of runs that are still alive',
    },
    json: { type: 'boolean', description: 'Print JSON instead of a table' },
  },
  async run({ flags, positionals }, io) {
    const [action, id] = positionals;
    const api = new BrowserApi({
      token: io.env.REMOTE_BROWSER_TOKEN,
      baseUrl: io.env.REMOTE_BROWSER_URL,
    });
    try {
      if (action === 'list') {
        const status = String(flags.status);
        if (!STATUSES.includes(status))
          throw new UsageError(`--status must be one of ${STATUSES.join(', ')} (got "${status}")`);
        const limit = flags.limit === undefined ? undefined : Number(flags.limit);
        if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
          throw new UsageError('--limit must be a positive integer');
        const sessions = await api.sessions.list({
          status: status as 'all',
          ...(limit ? { limit } : {}),
        });
        if (flags.json) io.stdout(JSON.stringify(sessions, null, 2));
        else
          io.stdout(
            table(
              sessions.map((s) => ({
                id: s.id,
                status: s.status,
                created_at: s.created_at,
                country: (s.config as { country?: string } | undefined)?.country,
              })),
              ['id', 'status', 'created_at', 'country'],
            ),
          );
        return 0;
      }
      if (action === 'end') {
        if (!id) throw new UsageError('`sessions end` needs a session id');
        await api.sessions.end(id);
        io.stdout(flags.json ? JSON.stringify({ id, status: 'ended' }) : `ended ${id}`);
        return 0;
      }
      if (action === 'reap') {
        const result = await reapSessions({
          api,
          includeLiveProcesses: Boolean(flags['include-live']),
        });
        if (flags.json) io.stdout(JSON.stringify(result, null, 2));
        else {
          io.stdout(
            `ended ${result.ended.length}, already gone ${result.alreadyGone.length}, failed ${result.failed.length}`,
          );
          for (const f of result.failed) io.stdout(`  ${f.id}: ${f.error}`);
        }
        return result.failed.length ? 1 : 0;
      }
      throw new UsageError(
        action ? `unknown action "${action}"` : 'missing action: list, end or reap',
      );
    } finally {
      await api.close();
    }
  },
};
