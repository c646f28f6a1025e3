/** `remote-browser locations countries|regions|cities|isps|zip-codes`. */
import type { Command } from 'commander';
import type { LocationItem } from '../../browser-api/index.js';
import { withBrowserApi } from '../clients.js';
import { act, integer, type Options, oneOf, type Runtime, withJson } from '../kit.js';
import type { Output } from '../output.js';

type Level = 'countries' | 'regions' | 'cities' | 'isps' | 'zip-codes';

const LEVELS: { level: Level; about: string; needs: string[]; narrows: string[] }[] = [
  { level: 'countries', about: 'exit countries', needs: [], narrows: ['search'] },
  { level: 'regions', about: 'regions of a country', needs: ['country'], narrows: [] },
  { level: 'cities', about: 'cities of a region', needs: ['country', 'region'], narrows: [] },
  { level: 'isps', about: 'ISPs of a country', needs: ['country'], narrows: [] },
  {
    level: 'zip-codes',
    about: 'zip codes of a country',
    needs: ['country'],
    narrows: ['region', 'city'],
  },
];

const FLAG: Record<string, string> = {
  search: '--search <text>',
  country: '--country <code>',
  region: '--region <code>',
  city: '--city <name>',
};

function print(out: Output, items: LocationItem[]): void {
  out.result(items, () =>
    out.table(
      items.map((i) => ({
        code: i.code,
        name: i.name,
        availability: i.availability,
        country: i.country_code,
        region: i.region_code,
      })),
      ['code', 'name', 'availability', 'country', 'region'],
    ),
  );
}

export function register(program: Command, rt: Runtime): void {
  const locations = program
    .command('locations')
    .description('the location codes proxy targeting accepts');
  for (const { level, about, needs, narrows } of LEVELS) {
    const command = locations.command(level).description(about);
    for (const flag of needs) command.requiredOption(FLAG[flag] as string, `${flag} (required)`);
    for (const flag of narrows) command.option(FLAG[flag] as string, `narrow by ${flag}`);
    withJson(
      command
        .option(
          '--connection-type <type>',
          'residential, mobile or isp',
          oneOf(['residential', 'mobile', 'isp']),
        )
        .option('--ipv4-only', 'IPv4 exits only')
        .option('--limit <n>', 'page size', integer('--limit'))
        .option('--offset <n>', 'skip this many', integer('--offset', { min: 0 })),
    ).action(
      act(rt, async (out, _args, opts) =>
        withBrowserApi(rt.io, async (api) => {
          const params = paramsOf(opts, [...needs, ...narrows]);
          const page =
            level === 'countries'
              ? api.locations.countries(params)
              : level === 'regions'
                ? api.locations.regions(params as never)
                : level === 'cities'
                  ? api.locations.cities(params as never)
                  : level === 'isps'
                    ? api.locations.isps(params as never)
                    : api.locations.zipCodes(params as never);
          print(out, await page);
        }),
      ),
    );
  }
}

function paramsOf(opts: Options, keys: string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const key of keys) if (opts[key] !== undefined) params[key] = opts[key];
  if (opts.connectionType) params.connection_type = opts.connectionType;
  if (opts.ipv4Only) params.ipv4_only = true;
  if (opts.limit !== undefined) params.limit = opts.limit;
  if (opts.offset !== undefined) params.offset = opts.offset;
  return params;
}
