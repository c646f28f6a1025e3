/** `remote-browser ask`: submit questions, wait with a live line per row, print the answers. */
import type { Command } from 'commander';
import type { Batch, ResultRow } from '../../account-api/index.js';
import { withAccountApi } from '../clients.js';
import { usageError } from '../errors.js';
import { act, collect, integer, type Runtime, withJson } from '../kit.js';
import type { Output } from '../output.js';
import { liveLines } from '../progress.js';

export function register(program: Command, rt: Runtime): void {
  withJson(
    program
      .command('ask')
      .description('ask the hosted assistants a question and wait for the answers (costs credits)')
      .argument('<question...>', 'the question (quote it); several arguments are several questions')
      .requiredOption(
        '--platform <name>',
        'assistant_a or assistant_b; repeat for several',
        collect,
      )
      .requiredOption('--country <code>', 'two-letter country code; repeat for several', collect)
      .option('--region <name>', 'region (with one --country)')
      .option('--city <name>', 'city (with one --country)')
      .option('--no-wait', 'print the request id and return without waiting')
      .option('--interval <ms>', 'poll interval', integer('--interval', { min: 100 }), 3000)
      .option('--timeout <s>', 'give up waiting after this long', integer('--timeout'), 600),
  ).action(
    act(rt, async (out, [questions], opts) =>
      withAccountApi(rt.io, async (api) => {
        const countries = opts.country as string[];
        if (countries.length > 1 && (opts.region || opts.city)) {
          throw usageError('--region and --city go with a single --country');
        }
        const platforms = (opts.platform as string[]).flatMap((p) => p.split(','));
        const locations = countries.map((country) => ({
          country,
          ...(opts.region ? { region: opts.region as string } : {}),
          ...(opts.city ? { city: opts.city as string } : {}),
        }));
        const submitted = await api.queries.submit({
          questions: questions as string[],
          platforms: platforms as never,
          locations,
        });
        if (opts.wait === false) {
          out.result({ request_id: submitted.request_id }, () => {
            out.line(submitted.request_id);
            out.note(`follow it with \`remote-browser results ${submitted.request_id}\``);
          });
          return 0;
        }
        out.note(
          out.errPaint.dim(`request ${submitted.request_id}: ${submitted.results.length} row(s)`),
        );
        const live = liveLines(out);
        const reported = new Set<string>();
        const progress = (batch: Batch) => {
          live.render(batch.results.map((row) => rowLine(out, row)));
          if (!out.interactive) {
            for (const row of batch.results) {
              if (row.status !== 'pending' && !reported.has(row.id)) {
                reported.add(row.id);
                out.note(rowLine(out, row));
              }
            }
          }
        };
        let batch: Batch;
        try {
          batch = await api.queries.wait(submitted.request_id, {
            intervalMs: opts.interval as number,
            timeout: (opts.timeout as number) * 1000,
            onProgress: progress,
          });
        } finally {
          live.stop();
        }
        printBatch(out, batch);
        return batch.results.some((r) => r.status === 'failed') ? 1 : 0;
      }),
    ),
  );
}

function where(row: { country?: string; region?: string; city?: string }): string {
  return [row.country, row.region, row.city].filter(Boolean).join('/') || '-';
}

function rowLine(out: Output, row: ResultRow): string {
  const p = out.errPaint;
  const mark =
    row.status === 'success' ? p.green('✓') : row.status === 'failed' ? p.red('✗') : p.yellow('…');
  return `${mark} ${row.platform} ${where(row)} ${p.dim(row.status)}${row.question ? ` ${p.dim(`"${row.question.slice(0, 40)}"`)}` : ''}`;
}

/** The rows grouped by the location they ran against, answers and sources under each. */
export function printBatch(out: Output, batch: Batch): void {
  out.result(batch, () => {
    const p = out.paint;
    const groups = new Map<string, ResultRow[]>();
    for (const row of batch.results) {
      const key = where(row);
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    for (const [location, rows] of groups) {
      out.line(p.bold(`== ${location}`));
      for (const row of rows) {
        out.line(`${p.cyan(row.platform)} ${p.dim(`[${row.status}]`)} ${row.question ?? ''}`);
        if (row.status === 'success' && row.raw_response) {
          for (const line of row.raw_response.text.split('\n')) out.line(`  ${line}`);
          for (const source of row.raw_response.sources) {
            out.line(`  ${p.dim('source:')} ${source.title} ${p.dim(source.url)}`);
          }
        } else if (row.status === 'failed') {
          out.line(`  ${p.red('failed')} ${p.dim('(its credit was refunded)')}`);
        } else {
          out.line(`  ${p.dim('still pending')}`);
        }
      }
    }
  });
}
