/**
 * The process warnings of each test (`process.emitWarning`'s message and code), captured instead
 * of printed: the session-end lines (end-reason.ts) are asserted on, not shown. Call at a
 * describe's (or the file's) top level; the list is emptied before each test.
 */
import { afterEach, beforeEach, type MockInstance, vi } from 'vitest';

export interface CapturedWarning {
  message: string;
  code: string | undefined;
}

export function useCapturedWarnings(): CapturedWarning[] {
  const warnings: CapturedWarning[] = [];
  let spy: MockInstance | undefined;
  beforeEach(() => {
    warnings.length = 0;
    spy = vi.spyOn(process, 'emitWarning').mockImplementation(((
      message: string,
      options?: { code?: string },
    ) => {
      warnings.push({ message, code: options?.code });
    }) as typeof process.emitWarning);
  });
  afterEach(() => {
    spy?.mockRestore();
  });
  return warnings;
}
