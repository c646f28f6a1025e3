/**
 * ANSI colours, off unless the stream is a terminal. NO_COLOR (any non-empty value) turns them
 * off and FORCE_COLOR turns them on (`0`/`false` off), as https://no-color.org and
 * https://force-color.org ask; TERM=dumb counts as no colour. A tiny helper rather than a
 * dependency: five styles are all the CLI uses.
 */

export type StyleName = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

const CODES: Record<StyleName, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

export function colorEnabled(isTTY: boolean, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force.toLowerCase() === 'false');
  return isTTY && env.TERM !== 'dumb';
}

export type Paint = Record<StyleName, (text: string) => string>;

export function painter(enabled: boolean): Paint {
  const paint = {} as Paint;
  for (const [name, [open, close]] of Object.entries(CODES) as [StyleName, [number, number]][]) {
    paint[name] = enabled ? (text) => `\u001b[${open}m${text}\u001b[${close}m` : (text) => text;
  }
  return paint;
}

/** Removes ANSI escapes (widths of coloured cells, pipes). */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the escape is the point
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}
