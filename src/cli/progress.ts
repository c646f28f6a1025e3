/**
 * Progress on stderr: a spinner or a bar redrawn in place on a terminal, plain lines (or
 * nothing) through a pipe, so logs stay readable and stdout stays data.
 */
import type { Output } from './output.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Spinner {
  text(text: string): void;
  /** Clears the spinner; prints `final` (on a terminal and through a pipe) when given. */
  stop(final?: string): void;
}

export function spinner(out: Output, initial: string): Spinner {
  if (!out.interactive) {
    return { text() {}, stop: (final) => final !== undefined && out.note(final) };
  }
  const write = out.io.stderrWrite as (text: string) => void;
  let text = initial;
  let frame = 0;
  const draw = () => {
    const mark = out.errPaint.cyan(FRAMES[frame++ % FRAMES.length] as string);
    write(`\r\u001b[2K${mark} ${clip(out.clean(text), out.io.columns)}`);
  };
  draw();
  const timer = setInterval(draw, 80);
  timer.unref();
  return {
    text(next) {
      text = next;
      draw();
    },
    stop(final) {
      clearInterval(timer);
      write('\r\u001b[2K');
      if (final !== undefined) out.note(final);
    },
  };
}

export interface Bar {
  update(received: number, total: number | undefined): void;
  stop(final: string): void;
}

/** A download bar: bytes, rate and ETA on a terminal; a start and an end line otherwise. */
export function bar(out: Output, label: string, now: () => number = Date.now): Bar {
  const started = now();
  if (!out.interactive) {
    out.note(`${label}: downloading`);
    return { update() {}, stop: (final) => out.note(final) };
  }
  const write = out.io.stderrWrite as (text: string) => void;
  let last = 0;
  return {
    update(received, total) {
      const t = now();
      if (t - last < 100 && received !== total) return;
      last = t;
      const seconds = Math.max((t - started) / 1000, 0.001);
      const rate = received / seconds;
      const parts = [label];
      if (total) {
        const ratio = Math.min(received / total, 1);
        const width = 20;
        const filled = Math.round(ratio * width);
        parts.push(
          `[${out.errPaint.green('█'.repeat(filled))}${'░'.repeat(width - filled)}]`,
          `${Math.round(ratio * 100)}%`,
          `${bytes(received)}/${bytes(total)}`,
        );
      } else {
        parts.push(bytes(received));
      }
      parts.push(`${bytes(rate)}/s`);
      if (total && rate > 0) parts.push(`ETA ${Math.ceil((total - received) / rate)}s`);
      write(`\r\u001b[2K${clip(parts.join(' '), out.io.columns)}`);
    },
    stop(final) {
      write('\r\u001b[2K');
      out.note(final);
    },
  };
}

export function bytes(n: number): string {
  if (n < 1024) return `${Math.round(n)} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Keeps a redrawn line on one terminal row (a pty without a size reports 0 columns). */
function clip(text: string, columns: number | undefined): string {
  const width = columns && columns >= 20 ? columns : 80;
  return text.length > width - 3 ? `${text.slice(0, width - 4)}…` : text;
}

export interface LiveLines {
  render(lines: string[]): void;
  stop(): void;
}

/** A block of lines redrawn in place on a terminal (one per row being waited on); none otherwise. */
export function liveLines(out: Output): LiveLines {
  if (!out.interactive) return { render() {}, stop() {} };
  const write = out.io.stderrWrite as (text: string) => void;
  let drawn = 0;
  return {
    render(lines) {
      const up = drawn > 0 ? `\u001b[${drawn}A` : '';
      write(
        `${up}${lines.map((l) => `\r\u001b[2K${clip(out.clean(l), out.io.columns)}\n`).join('')}`,
      );
      drawn = lines.length;
    },
    stop() {
      if (drawn > 0) write(`\u001b[${drawn}A\u001b[0J`);
      drawn = 0;
    },
  };
}
