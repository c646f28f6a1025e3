/**
 * A reporter beside the default one: on CI a failed e2e test runs once more (vitest.config.ts),
 * and the default reporter then shows only "(retry x1)" for one that passed the second time.
 * This prints why its first attempt failed, so a flake on a loaded machine can be diagnosed
 * from the run's log instead of being retried away unseen.
 */
import type { Reporter, TestCase } from 'vitest/node';

/** The lines for `test` when it passed only after a retry; undefined otherwise. */
export function retriedReport(test: TestCase): string | undefined {
  const result = test.result();
  if (result.state !== 'passed' || !test.diagnostic()?.flaky) return undefined;
  const errors = (result.errors ?? []).map((e) => e.stack || e.message);
  return [
    `retried, then passed: ${test.module.relativeModuleId} > ${test.fullName}`,
    ...(errors.length > 0 ? errors : ['(the failed attempt recorded no error)']),
  ].join('\n');
}

export default class RetriedTests implements Reporter {
  readonly #reports: string[] = [];

  onTestCaseResult(test: TestCase): void {
    const report = retriedReport(test);
    if (report) this.#reports.push(report);
  }

  onTestRunEnd(): void {
    if (this.#reports.length === 0) return;
    process.stdout.write(`\n${this.#reports.join('\n\n')}\n`);
  }
}
