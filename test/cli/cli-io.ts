/** An in-memory `CliIo` for `main(argv, io)` tests. */
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

export interface Ran {
  code: number;
  out: string;
  err: string;
  /** Everything written, progress included. */
  all: string;
}

export interface FakeIoOptions {
  isTTY?: boolean;
  confirm?: (question: string) => Promise<boolean>;
  /** Receives the interrupt trigger, so a test can press Ctrl-C. */
  interrupt?: (press: (signal: NodeJS.Signals) => void) => void;
  cwd?: string;
}

export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  options: FakeIoOptions = {},
): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const raw: string[] = [];
  const handlers = new Set<(signal: NodeJS.Signals) => void>();
  options.interrupt?.((signal) => {
    for (const handler of handlers) handler(signal);
  });
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    isTTY: options.isTTY ?? false,
    env,
    ...(options.isTTY ? { stderrWrite: (t: string) => raw.push(t), columns: 100 } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    onInterrupt(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
  const code = await main(argv, io);
  return {
    code,
    out: out.join('\n'),
    err: err.join('\n'),
    all: [...out, ...err, ...raw].join('\n'),
  };
}
