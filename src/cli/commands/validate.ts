/**
 * `remote-browser validate`: the launch layer's own preflight (strict: the city is looked up in
 * the location list too), from the shell. Exit 1 when invalid, so it can gate a CI job.
 */
import type { Command } from 'commander';
import { withBrowserApi } from '../clients.js';
import { act, type Runtime, withJson } from '../kit.js';
import { targetingOf, withTargeting } from '../targeting.js';

export function register(program: Command, rt: Runtime): void {
  withJson(
    withTargeting(
      program
        .command('validate')
        .description(
          'check a proxy targeting with the service before launching (nothing is billed); exit 1 when invalid',
        ),
    ),
  ).action(
    act(rt, async (out, _args, opts) =>
      withBrowserApi(rt.io, async (api) => {
        const { checkTargeting, toWireSession } = await import('../../launch/index.js');
        const { profile, ...targeting } = targetingOf(opts);
        const wire = toWireSession(targeting);
        const { result, issues } = await checkTargeting(api, wire, 'strict');
        if (typeof profile === 'string' && !(await api.profiles.findByName(profile))) {
          issues.push({
            code: 'unknown_profile',
            field: 'profile',
            message: `no profile named "${profile}"`,
            suggestion: 'see `remote-browser profiles list`; sessions create it on first use',
          });
        }
        const valid = issues.length === 0;
        out.result({ ...result, valid, issues: valid ? null : issues }, () => {
          const p = out.paint;
          out.line(valid ? p.green('✓ valid') : p.red(`✗ invalid (${issues.length} issue(s))`));
          for (const issue of issues) {
            out.line(
              `  ${p.bold(issue.field)}: ${issue.message}${issue.suggestion ? p.dim(` (suggestion: ${issue.suggestion})`) : ''}`,
            );
          }
          out.fields([
            ['normalized', result.normalized],
            ['proxy username', result.proxy_username_preview],
          ]);
        });
        return valid ? 0 : 1;
      }),
    ),
  );
}
