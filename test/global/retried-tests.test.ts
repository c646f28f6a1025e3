import { describe, expect, it } from 'vitest';
import type { TestCase } from 'vitest/node';
import RetriedTests, { retriedReport } from './retried-tests.js';

/** The parts of a vitest TestCase the reporter reads. */
function testCase(
  state: 'passed' | 'failed',
  flaky: boolean,
  errors: { message: string; stack?: string }[] = [],
): TestCase {
  return {
    fullName: 'geo > reports Berlin',
    module: { relativeModuleId: 'test/playwright/geo.e2e.test.ts' },
    result: () => ({ state, errors }),
    diagnostic: () => ({ flaky }),
  } as unknown as TestCase;
}

describe('retriedReport', () => {
  it('prints the first attempt’s error of a test that passed only on its retry', () => {
    const report = retriedReport(
      testCase('passed', true, [{ message: 'boom', stack: 'Error: boom\n    at geo.ts:1:1' }]),
    );
    expect(report).toBe(
      'retried, then passed: test/playwright/geo.e2e.test.ts > geo > reports Berlin\nError: boom\n    at geo.ts:1:1',
    );
  });

  it('says so when the failed attempt left no error', () => {
    expect(retriedReport(testCase('passed', true))).toContain(
      '(the failed attempt recorded no error)',
    );
  });

  it('says nothing of a test that passed at once, or failed (the default reporter shows those)', () => {
    expect(retriedReport(testCase('passed', false))).toBeUndefined();
    expect(retriedReport(testCase('failed', true, [{ message: 'x' }]))).toBeUndefined();
  });
});

describe('the reporter', () => {
  it('prints every retried test once, at the end of the run, and nothing when none was', () => {
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof write;
    try {
      const quiet = new RetriedTests();
      quiet.onTestCaseResult(testCase('passed', false));
      quiet.onTestRunEnd();
      expect(written).toEqual([]);
      const reporter = new RetriedTests();
      reporter.onTestCaseResult(testCase('passed', true, [{ message: 'first' }]));
      reporter.onTestCaseResult(testCase('passed', true, [{ message: 'second' }]));
      expect(written).toEqual([]);
      reporter.onTestRunEnd();
    } finally {
      process.stdout.write = write;
    }
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(
      /retried, then passed: .*\nfirst\n\nretried, then passed: .*\nsecond\n$/,
    );
  });
});
