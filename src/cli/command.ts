/** The shape of a CLI command: one file each under commands/, registered in main.ts. */

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Human tables and progress only on a TTY. */
  isTTY: boolean;
  env: Record<string, string | undefined>;
}

export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  short?: string;
  default?: string | boolean;
}

export interface ParsedArgs {
  flags: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  /** e.g. `remote-browser sessions list [--status running]` */
  usage: string;
  flags: Record<string, FlagSpec>;
  /** Resolves with the exit code. Throw to fail with a one-line reason. */
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

/** A wrong invocation: exit code 2 and the command's usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--json` output or a plain table for humans. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((c) => formatCell(row[c])));
  const widths = columns.map((c, i) =>
    Math.max(c.length, ...cells.map((r) => (r[i] as string).length)),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

function formatCell(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
