/**
 * The targeting flags shared by `validate`, `sessions create`, the page actions and `run`, and
 * their conversion to the connector's camelCase options (the launch layer maps those to wire
 * names in its one place).
 */
import type { Command } from 'commander';
import type { LaunchRemoteOptions } from '../launch/index.js';
import { type Options, oneOf } from './kit.js';

const PROTOCOLS = ['http', 'socks5'];
const CONNECTION_TYPES = ['residential', 'mobile'];
const SESSION_TYPES = ['sticky', 'rotating', 'no_rotating'];
const FILTER_MODES = ['quality', 'quality_speed', 'speed', 'none'];

export function withTargeting(command: Command): Command {
  return command
    .option('--country <code>', 'exit country, e.g. us (see `locations countries`)')
    .option('--region <code>', 'exit region (see `locations regions --country us`)')
    .option('--city <code>', 'exit city code, e.g. los_angeles (see `locations cities`)')
    .option('--zip <code>', 'exit zip code (see `locations zip-codes`)')
    .option('--isp <code>', 'exit ISP code, e.g. comcast (see `locations isps`)')
    .option('--protocol <protocol>', `proxy protocol: ${PROTOCOLS.join(', ')}`, oneOf(PROTOCOLS))
    .option('--connection-type <type>', `${CONNECTION_TYPES.join(' or ')}`, oneOf(CONNECTION_TYPES))
    .option('--session-type <type>', `${SESSION_TYPES.join(', ')}`, oneOf(SESSION_TYPES))
    .option('--filter-mode <mode>', `IP filtering: ${FILTER_MODES.join(', ')}`)
    .option('--ipv4-only', 'IPv4 exits only')
    .option(
      '--profile <name>',
      'saved profile by name (created on first use where sessions start)',
    );
}

/** The connector options the flags set (unset flags are left out: the service's defaults apply). */
export function targetingOf(opts: Options): LaunchRemoteOptions {
  const out: Record<string, unknown> = {};
  const copy = (flag: string, key: string) => {
    if (opts[flag] !== undefined) out[key] = opts[flag];
  };
  copy('country', 'country');
  copy('region', 'region');
  copy('city', 'city');
  copy('zip', 'zip');
  copy('isp', 'isp');
  copy('protocol', 'protocol');
  copy('connectionType', 'connectionType');
  copy('sessionType', 'sessionType');
  copy('filterMode', 'filterMode');
  copy('ipv4Only', 'ipv4Only');
  copy('profile', 'profile');
  return out as LaunchRemoteOptions;
}
