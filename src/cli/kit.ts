/**
 * The glue between commander and the command files: one `Runtime` per `main()` call carries the
 * io and the exit code; `act()` wraps an action so it gets an `Output` set up from its flags.
 */
import { type Command, InvalidArgumentError } from './commander.js';
import type { CliIo } from './io.js';
import { Output, type OutputMode } from './output.js';

export interface Runtime {
  io: CliIo;
  /** Exit code of the action that ran. */
  code: number;
  /** Output mode of the action that ran (error formatting follows it). */
  mode: OutputMode;
}

export type Options = Record<string, unknown>;

/** Adds `--json` (and the note that errors are JSON too). */
export function withJson(command: Command): Command {
  return command.option('--json', 'print JSON on stdout (errors too)');
}

export function withSecrets(command: Command): Command {
  return command.option(
    '--show-secrets',
    'print tokens, passwords and the cdp_url access token instead of [REDACTED]',
  );
}

/**
 * Wraps an action: `fn(out, args, opts)` gets the positional arguments (variadic ones as
 * arrays) and the parsed options; it resolves with the exit code (anything else means 0).
 */
export function act(
  rt: Runtime,
  fn: (out: Output, args: unknown[], opts: Options) => Promise<unknown>,
): (...all: unknown[]) => Promise<void> {
  return async (...all) => {
    const command = all.at(-1) as Command;
    const opts = command.opts() as Options;
    rt.mode = { json: Boolean(opts.json), showSecrets: Boolean(opts.showSecrets) };
    const out = new Output(rt.io, rt.mode);
    const code = await fn(out, all.slice(0, -2), opts);
    rt.code = typeof code === 'number' ? code : 0;
  };
}

/** Option parser for positive integers (and 0 when `allowZero`). */
export function integer(name: string, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        `${name} must be an integer${max === Number.MAX_SAFE_INTEGER ? ` >= ${min}` : ` from ${min} to ${max}`}.`,
      );
    }
    return n;
  };
}

/** Option parser for one of `values`. */
export function oneOf(values: readonly string[]) {
  return (value: string): string => {
    if (!values.includes(value)) {
      throw new InvalidArgumentError(`must be one of ${values.join(', ')}.`);
    }
    return value;
  };
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
