/**
 * What the CLI touches outside itself, so `main(argv, io)` runs in-process in tests. Only
 * `stdout`, `stderr`, `isTTY` and `env` are required; the rest have process-backed defaults in
 * `processIo()` and safe fallbacks elsewhere (no prompt → refuse, no interrupt hook → none).
 */
import { onSignals } from '../http/process-signals.js';

export interface CliIo {
  /** Writes one line (a newline is added) to standard output. */
  stdout(text: string): void;
  /** Writes one line to standard error. */
  stderr(text: string): void;
  /** Whether stdout is a terminal: tables, colours and progress only then. */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Whether stderr is a terminal (progress is drawn there). Default: `isTTY`. */
  stderrIsTTY?: boolean | undefined;
  /** Raw write to stderr without a newline, for redrawing a progress line. */
  stderrWrite?: ((text: string) => void) | undefined;
  /** Terminal width for progress lines. Default 80. */
  columns?: number | undefined;
  /** Asks a yes/no question on the terminal; absent when stdin is not a terminal. */
  confirm?: ((question: string) => Promise<boolean>) | undefined;
  /** Calls `handler` on Ctrl-C (SIGINT) or SIGTERM until the returned function is called. */
  onInterrupt?: ((handler: (signal: NodeJS.Signals) => void) => () => void) | undefined;
  /** Working directory for relative output paths. Default: `process.cwd()`. */
  cwd?: string | undefined;
}

export function processIo(): CliIo {
  // A reader that stops early (`remote-browser sessions list | head -1`) closes the pipe: the
  // next write fails with EPIPE, which would crash the CLI with a stack trace. The command goes
  // on writing nowhere instead, so it still ends the sessions it started.
  let stdoutClosed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutClosed = true;
  });
  return {
    stdout: (text) => {
      if (!stdoutClosed) process.stdout.write(`${text}\n`);
    },
    stderr: (text) => process.stderr.write(`${text}\n`),
    isTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stderrWrite: (text) => process.stderr.write(text),
    columns: process.stderr.columns,
    env: process.env,
    confirm: process.stdin.isTTY ? askOnTerminal : undefined,
    // A host handler: the command ends its work itself (and exits) after the signal.
    onInterrupt: (handler) => onSignals(['SIGINT', 'SIGTERM'], handler),
  };
}

async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
