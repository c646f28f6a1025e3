/** `remote-browser proxy options`: the targeting vocabulary with its defaults. */
import type { Command } from 'commander';
import { withBrowserApi } from '../clients.js';
import { act, type Runtime, withJson } from '../kit.js';

export function register(program: Command, rt: Runtime): void {
  const proxy = program.command('proxy').description('the proxy targeting vocabulary');
  withJson(
    proxy
      .command('options')
      .description('connection types, session types, protocols, filter modes'),
  ).action(
    act(rt, async (out) =>
      withBrowserApi(rt.io, async (api) => {
        const options = await api.proxy.options();
        out.result(options, () => {
          for (const [key, value] of Object.entries(options)) {
            const shown = Array.isArray(value)
              ? value
                  .map((v) =>
                    typeof v === 'object' && v && 'value' in v
                      ? `${(v as { value: string }).value}${(v as { default?: boolean }).default ? out.paint.dim(' (default)') : ''}`
                      : String(v),
                  )
                  .join(', ')
              : typeof value === 'object'
                ? JSON.stringify(value)
                : String(value);
            out.line(`${out.paint.bold(key)}: ${shown}`);
          }
        });
      }),
    ),
  );
}
