/**
 * Which e2e files may share the machine with another e2e file. Most run two at a time: their
 * wall time is largely waiting (a Chromium starting, a response, a child process), so a second
 * file fills the other core. The files listed here run alone, because what they assert depends
 * on how fast Chromium starts while they run, or because they start many Chromiums at once.
 * Listed by path from the repository root; a new file shares unless it is added here.
 */
import { relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export const SOLO_E2E_FILES: ReadonlySet<string> = new Set([
  // Signals and Ctrl-C at chosen moments of a child's launch; children of their own.
  'test/reliability/exit-matrix.e2e.test.ts',
  // A warm session must start while a test's 1.5 s runs, or the peak of 2 is never seen.
  'test/fixture/prewarm.e2e.test.ts',
  // Two workers at a session limit of 1, and Ctrl-C once both sessions run.
  'test/fixture/lifecycle.e2e.test.ts',
  // Two shards at once on a shared session limit.
  'test/fixture/sharding.e2e.test.ts',
  // Ten Chromiums started at once against the runtime's 30 s launch timeout.
  'test/emulator/sessions.e2e.test.ts',
  'test/emulator/runtime/browser-runtime.e2e.test.ts',
]);

/** True when the e2e file at `path` (absolute, or from the repository root) must run alone. */
export function runsAlone(path: string): boolean {
  return SOLO_E2E_FILES.has(relative(ROOT, resolve(ROOT, path)).split('\\').join('/'));
}
