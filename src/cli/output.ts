/**
 * Everything a command prints goes through here: redacted (unless `--show-secrets`), JSON for
 * `--json`, aligned coloured tables on a terminal and tab-separated lines through a pipe. Human
 * output never carries a control byte the service sent: see `terminalSafe`.
 */
import { redact } from '../http/redact.js';
import type { CliIo } from './io.js';
import { colorEnabled, type Paint, painter, stripAnsi } from './style.js';

export interface OutputMode {
  /** `--json`: one JSON document on stdout, errors included. */
  json: boolean;
  /** `--show-secrets`: print tokens, passwords and cdp_url access tokens as they are. */
  showSecrets: boolean;
}

export class Output {
  readonly io: CliIo;
  readonly mode: OutputMode;
  /** Colours for stdout. */
  readonly paint: Paint;
  /** Colours for stderr. */
  readonly errPaint: Paint;

  constructor(io: CliIo, mode: Partial<OutputMode> = {}) {
    this.io = io;
    this.mode = { json: mode.json ?? false, showSecrets: mode.showSecrets ?? false };
    this.paint = painter(colorEnabled(io.isTTY, io.env));
    this.errPaint = painter(colorEnabled(io.stderrIsTTY ?? io.isTTY, io.env));
  }

  get interactive(): boolean {
    return (this.io.stderrIsTTY ?? this.io.isTTY) && this.io.stderrWrite !== undefined;
  }

  /** Human text as it may reach a terminal: redacted, and `terminalSafe`. */
  clean(text: string): string {
    return terminalSafe(this.#redacted(text));
  }

  #redacted(text: string): string {
    return this.mode.showSecrets ? text : redact(text);
  }

  /** One line of human output on stdout. */
  line(text: string): void {
    this.io.stdout(this.clean(text));
  }

  /** A line that is printed as is: only for credentials the user asked to see (the emulator's own). */
  unredacted(text: string): void {
    this.io.stdout(terminalSafe(text));
  }

  /** A note for humans on stderr (keeps stdout clean for pipes). */
  note(text: string): void {
    this.io.stderr(this.clean(text));
  }

  json(value: unknown): void {
    // The library's objects mask their secrets in toJSON; --show-secrets prints the plain fields.
    const shown = this.mode.showSecrets ? plain(value) : value;
    // Exact JSON: JSON.stringify escapes C0 controls itself, and nothing else is changed.
    this.io.stdout(this.#redacted(JSON.stringify(shown, null, 2)));
  }

  /** `--json` prints `value`; otherwise `human()` prints what people read. */
  result(value: unknown, human: () => void): void {
    if (this.mode.json) this.json(value);
    else human();
  }

  table(rows: Record<string, unknown>[], columns: string[]): void {
    if (rows.length === 0) {
      this.line(this.io.isTTY ? this.paint.dim('(none)') : '');
      return;
    }
    const cells = rows.map((row) => columns.map((c) => cell(row[c])));
    if (!this.io.isTTY) {
      for (const values of [columns, ...cells]) this.line(values.join('\t'));
      return;
    }
    const widths = columns.map((c, i) =>
      Math.max(c.length, ...cells.map((r) => stripAnsi(r[i] as string).length)),
    );
    const pad = (v: string, i: number) =>
      v + ' '.repeat(Math.max(0, (widths[i] as number) - stripAnsi(v).length));
    this.line(this.paint.bold(columns.map(pad).join('  ').trimEnd()));
    for (const values of cells) this.line(values.map(pad).join('  ').trimEnd());
  }

  /** `key: value` lines for one object. */
  fields(entries: [string, unknown][]): void {
    const width = Math.max(...entries.map(([k]) => k.length));
    for (const [key, value] of entries) {
      if (value === undefined) continue;
      this.line(`${this.paint.dim(`${key}:`.padEnd(width + 1))} ${cell(value)}`);
    }
  }
}

/** A deep copy of own enumerable fields: no toJSON hooks. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
}

/** A value for a table or field, `terminalSafe`. */
export function cell(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  return terminalSafe(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

// The CLI's own colours (style.ts), which `terminalSafe` lets through.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control bytes is the point
const OWN_SGR = /^\u001b\[(?:1|2|22|31|32|33|36|39)m$/;
// C0 controls but tab and newline, DEL, C1 controls, and the bidi overrides and isolates that
// reorder what a terminal shows; an SGR sequence is matched whole, to keep the CLI's own.
const CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control bytes is the point
  /\u001b\[[0-9;]{0,8}m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Human text made safe for a terminal: ESC (so no cursor moves, screen clears, or OSC 52
 * clipboard writes), CR, the other C0 and C1 controls and bidi overrides are written as
 * visible escapes (`\x1b`, `\x0d`); newline and tab stay, and so do the CLI's own colours
 * (bold, dim, red, green, yellow, cyan: a service's string may use those too, nothing else).
 */
function terminalSafe(text: string): string {
  return text.replace(CONTROLS, (match) => {
    if (match.length > 1) return OWN_SGR.test(match) ? match : `\\x1b${match.slice(1)}`;
    const code = match.charCodeAt(0);
    return code > 0xff
      ? `\\u${code.toString(16).padStart(4, '0')}`
      : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}
