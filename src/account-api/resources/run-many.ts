/**
 * `queries.runMany`: more questions or locations than one submit allows. Submits go out one by
 * one through the submit limiter (20/min), and each batch is waited on as soon as it is
 * submitted, so polling overlaps the remaining submits. If a submit fails, polling stops and a
 * RunManyError carries the request ids already submitted (their credits are spent; their rows
 * can still be read with `queries.results`).
 */
import type { CallOptions } from '../../http/call-options.js';
import { guard, RemoteBrowserError } from '../../http/errors.js';
import { parseRequest } from '../../http/request-validation.js';
import { chunk } from '../batches.js';
import { LIMITS } from '../schemas/limits.js';
import {
  type Batch,
  type ResultRow,
  type RunManyParams,
  RunManyParamsSchema,
  type SubmitParams,
  type SubmitResponse,
} from '../schemas/queries.js';
import { rejectUnavailablePlatforms } from '../validate.js';
import { checkWaitOptions, type WaitOptions } from './wait-options.js';

/** What `runMany` needs of the queries resource. */
export interface BatchRunner {
  submit(params: SubmitParams, options: CallOptions): Promise<SubmitResponse>;
  wait(requestId: string, options: WaitOptions): Promise<Batch>;
}

export interface RunManyProgress {
  submitsTotal: number;
  submitsDone: number;
  rowsTotal: number;
  rowsSettled: number;
  requestIds: string[];
}

export interface RunManyOptions extends Omit<WaitOptions, 'onProgress'> {
  /** Called after every submit and every poll. */
  onProgress?: ((progress: RunManyProgress) => void) | undefined;
}

export interface RunManyResult {
  /** One per submit, in submit order. */
  request_ids: string[];
  /** The settled batches, in submit order. */
  batches: Batch[];
  /** Every row of every batch, merged. */
  results: ResultRow[];
}

export class RunManyError extends RemoteBrowserError {
  override name = 'RunManyError';
  /** Submits that were accepted (and charged) before the failure. */
  readonly requestIds: readonly string[];

  constructor(message: string, requestIds: string[], cause: unknown) {
    super(message, { cause });
    this.requestIds = requestIds;
  }

  protected override details(): Record<string, unknown> {
    return { requestIds: this.requestIds };
  }
}

export const isRunManyError = guard<RunManyError>(RunManyError, 'RunManyError');

export async function runMany(
  queries: BatchRunner,
  params: RunManyParams,
  options: RunManyOptions,
  allowUnavailablePlatforms: boolean,
): Promise<RunManyResult> {
  const input = parseRequest('queries.runMany', RunManyParamsSchema, params);
  // onProgress differs in type from wait's, not in the rule: a function.
  checkWaitOptions('queries.runMany', options as WaitOptions);
  rejectUnavailablePlatforms('queries.runMany', input.platforms, allowUnavailablePlatforms);
  const plan = chunk(input.questions, LIMITS.questionsPerSubmit).flatMap((questions) =>
    chunk(input.locations, LIMITS.locationsPerSubmit).map((locations) => ({
      questions,
      platforms: input.platforms,
      locations,
    })),
  );
  const rowsTotal = input.questions.length * input.platforms.length * input.locations.length;
  const settled = new Map<string, number>();
  const requestIds: string[] = [];
  const report = () =>
    options.onProgress?.({
      submitsTotal: plan.length,
      submitsDone: requestIds.length,
      rowsTotal,
      rowsSettled: [...settled.values()].reduce((a, b) => a + b, 0),
      requestIds: [...requestIds],
    });

  // One controller stops every waiter when a submit fails or the caller aborts.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const waits: Promise<Batch>[] = [];
  for (const submit of plan) {
    let requestId: string;
    try {
      requestId = (await queries.submit(submit, { signal })).request_id;
    } catch (error) {
      stop.abort();
      await Promise.allSettled(waits);
      throw new RunManyError(
        `queries.runMany: submit ${requestIds.length + 1} of ${plan.length} failed: ${(error as Error).message}`,
        requestIds,
        error,
      );
    }
    requestIds.push(requestId);
    settled.set(requestId, 0);
    report();
    const waiting = queries.wait(requestId, {
      ...options,
      signal,
      onProgress: (batch) => {
        settled.set(requestId, batch.results.filter((r) => r.status !== 'pending').length);
        report();
      },
    });
    // Observed at once so a failure while later submits run is not an unhandled rejection.
    waiting.catch(() => stop.abort());
    waits.push(waiting);
  }
  try {
    const batches = await Promise.all(waits);
    return { request_ids: requestIds, batches, results: batches.flatMap((b) => b.results) };
  } catch (error) {
    throw new RunManyError(
      `queries.runMany: waiting for results failed: ${(error as Error).message}`,
      requestIds,
      error,
    );
  }
}
