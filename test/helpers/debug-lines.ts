/** The debug lines `run` writes with `DEBUG` set to `namespaces` (redacted, as a user sees them). */
import { setDebugSink } from '../../src/http/debug.js';
import { withEnv } from './env.js';

export async function debugLines(
  run: () => Promise<unknown>,
  namespaces = 'remote-browser:http',
): Promise<string[]> {
  const lines: string[] = [];
  const previous = setDebugSink((line) => lines.push(line));
  try {
    await withEnv({ DEBUG: namespaces }, run);
  } finally {
    setDebugSink(previous);
  }
  return lines;
}
