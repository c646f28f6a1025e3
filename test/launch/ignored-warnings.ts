/**
 * The process warnings a drop-in emits for ignored options, per test: the once-per-process
 * memo is reset and the list emptied before each test. `settled()` waits for Node to deliver
 * a warning (it emits them on the next tick).
 */
import { afterEach, beforeEach } from 'vitest';
import { resetIgnoredWarnings } from '../../src/launch/drop-in-options.js';

export function useIgnoredWarnings(): (Error & { code?: string })[] {
  const warnings: (Error & { code?: string })[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  beforeEach(() => {
    warnings.length = 0;
    resetIgnoredWarnings();
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });
  return warnings;
}

export const settled = () => new Promise((r) => setImmediate(r));
