/**
 * Runs a child command with extra environment and stdio inherited; resolves with its exit
 * code (128 + signal number when a signal ended it, as shells report it).
 */
import { constants } from 'node:os';

export interface ChildRun {
  command: string[];
  env: Record<string, string | undefined>;
  cwd?: string | undefined;
  /** Called with a function that forwards an interrupt to the child. */
  onStarted?(forward: (signal: NodeJS.Signals) => void): void;
}

/** How long a child gets to act on a terminal's Ctrl-C (it got it too) before we forward it. */
const FORWARD_AFTER_MS = 300;

export async function runChild(run: ChildRun): Promise<number> {
  const { spawn } = await import('node:child_process');
  const [file, ...args] = run.command;
  return new Promise<number>((resolve, reject) => {
    const child = spawn(file as string, args, { stdio: 'inherit', env: run.env, cwd: run.cwd });
    let exited = false;
    child.once('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      reject(
        Object.assign(
          new Error(`cannot run ${file}: ${code === 'ENOENT' ? 'not found' : error.message}`),
          {
            code,
          },
        ),
      );
    });
    child.once('exit', (code, signal) => {
      exited = true;
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
    run.onStarted?.((signal) => {
      // A terminal's Ctrl-C reaches the whole process group; a `kill` reaches only us.
      setTimeout(() => {
        if (!exited) child.kill(signal);
      }, FORWARD_AFTER_MS).unref();
    });
  });
}
