/** `remote-browser balance`: credits on the account. */
import type { Command } from 'commander';
import { withAccountApi } from '../clients.js';
import { act, type Runtime, withJson } from '../kit.js';

export function register(program: Command, rt: Runtime): void {
  withJson(program.command('balance').description('credits available on the account')).action(
    act(rt, async (out) =>
      withAccountApi(rt.io, async (api) => {
        const balance = await api.balance();
        out.result(balance, () => out.line(`${out.paint.bold(String(balance.balance))} credits`));
      }),
    ),
  );
}
