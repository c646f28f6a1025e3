/** `remote-browser results <request_id>`: a submitted batch's rows, grouped by location. */
import type { Command } from 'commander';
import type { Batch } from '../../account-api/index.js';
import { withAccountApi } from '../clients.js';
import { CliError } from '../errors.js';
import { act, type Runtime, withJson } from '../kit.js';
import { printBatch } from './ask.js';

export function register(program: Command, rt: Runtime): void {
  withJson(
    program
      .command('results')
      .description('the rows of a submitted question batch, grouped by location')
      .argument('<request_id>', 'from `ask --no-wait` or the API'),
  ).action(
    act(rt, async (out, [requestId]) =>
      withAccountApi(rt.io, async (api) => {
        let batch: Batch;
        try {
          batch = await api.queries.results(requestId as string);
        } catch (error) {
          if ((error as Error).name === 'NotFoundError') {
            throw new CliError(`no request ${requestId as string}`, {
              code: 'not_found',
              hint: 'request ids belong to the account that submitted them',
            });
          }
          throw error;
        }
        printBatch(out, batch);
      }),
    ),
  );
}
