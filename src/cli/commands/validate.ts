import { BrowserApi } from '../../browser-api/index.js';
import type { Command } from '../command.js';

/** Runs the same check as launchRemote's preflight, from the shell. */
export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a proxy targeting with the service before launching (no session is billed)',
  usage:
    'remote-browser validate [--country us] [--region ca] [--filter-mode quality] [--protocol http] [--connection-type residential] [--session-type sticky] [--json]',
  flags: {
    country: { type: 'string', description: 'Exit country code' },
    region: { type: 'string', description: 'Exit region code' },
    'filter-mode': { type: 'string', description: 'quality, quality_speed, speed or none' },
    protocol: { type: 'string', description: 'http or socks5' },
    'connection-type': { type: 'string', description: 'residential or mobile' },
    'session-type': { type: 'string', description: 'sticky, rotating or no_rotating' },
    json: { type: 'boolean', description: "Print the service's validation result as JSON" },
  },
  async run({ flags }, io) {
    const params: Record<string, string> = {};
    for (const [flag, wire] of [
      ['country', 'country'],
      ['region', 'region'],
      ['filter-mode', 'filter_mode'],
      ['protocol', 'protocol'],
      ['connection-type', 'connection_type'],
      ['session-type', 'session_type'],
    ] as const) {
      if (typeof flags[flag] === 'string') params[wire] = flags[flag] as string;
    }
    const api = new BrowserApi({
      token: io.env.REMOTE_BROWSER_TOKEN,
      baseUrl: io.env.REMOTE_BROWSER_URL,
    });
    try {
      const result = await api.configurations.validate(params as never);
      if (flags.json) {
        io.stdout(JSON.stringify(result, null, 2));
      } else if (result.valid) {
        io.stdout(`valid: ${JSON.stringify(result.normalized)}`);
      } else {
        io.stdout('invalid:');
        for (const issue of result.issues ?? []) {
          io.stdout(
            `  ${issue.field}: ${issue.message}${issue.suggestion ? ` (suggestion: ${issue.suggestion})` : ''}`,
          );
        }
      }
      return result.valid ? 0 : 1;
    } finally {
      await api.close();
    }
  },
};
