import { BrowserApi } from '../../browser-api/index.js';
import { type Command, table, UsageError } from '../command.js';

export const profilesCommand: Command = {
  name: 'profiles',
  summary: 'List or delete saved browser profiles',
  usage: 'remote-browser profiles list | delete <name-or-id> [--json]',
  flags: {
    json: { type: 'boolean', description: 'Print JSON instead of a table' },
  },
  async run({ flags, positionals }, io) {
    const [action, target] = positionals;
    const api = new BrowserApi({
      token: io.env.REMOTE_BROWSER_TOKEN,
      baseUrl: io.env.REMOTE_BROWSER_URL,
    });
    try {
      if (action === 'list') {
        const profiles = await api.profiles.list();
        io.stdout(
          flags.json
            ? JSON.stringify(profiles, null, 2)
            : table(
                profiles.map((p) => ({
                  id: p.id,
                  name: p.name,
                  store_cache: p.store_cache,
                  pin_ip: p.pin_ip,
                  pinned: p.pinned_country,
                })),
                ['id', 'name', 'store_cache', 'pin_ip', 'pinned'],
              ),
        );
        return 0;
      }
      if (action === 'delete') {
        if (!target) throw new UsageError('`profiles delete` needs a profile name or id');
        const byName = await api.profiles.findByName(target);
        const id = byName?.id ?? target;
        await api.profiles.delete(id);
        io.stdout(
          flags.json
            ? JSON.stringify({ id, deleted: true })
            : `deleted profile ${byName ? `"${byName.name}" ` : ''}(${id})`,
        );
        return 0;
      }
      throw new UsageError(
        action ? `unknown action "${action}"` : 'missing action: list or delete',
      );
    } finally {
      await api.close();
    }
  },
};
