/**
 * A user's script for the launch tests that need a real process (exit hooks, the watchdog, a
 * SIGKILL): a file under test/fixtures run through tsx, its stdout and stderr collected as one
 * text, and its exit as a promise.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ChildScript {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `test/fixtures/<name>` with the test's environment plus `env`. */
export function runChildScript(name: string, env: Record<string, string>): ChildScript {
  const script = new URL(`../fixtures/${name}`, import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}
