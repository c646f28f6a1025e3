/** The one table `npm run bench` prints: goal, measured figure, met or missed. */

export interface Row {
  id: string;
  /** What was measured, e.g. "P1 Playwright, 100 ms RTT". */
  what: string;
  goal: string;
  measured: string;
  /** `undefined` when the row could not be measured (the reason is in `measured`). */
  met: boolean | undefined;
}

const verdict = (row: Row) => (row.met === undefined ? 'n/a' : row.met ? 'met' : 'MISSED');

/** A Markdown table, so one run can be pasted into the README as it is. */
export function renderTable(rows: readonly Row[]): string {
  const lines = [
    '| row | measured | goal | figure (median; spread) | verdict |',
    '|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const cells = [row.id, row.what, row.goal, row.measured, verdict(row)].map((cell) =>
      cell.replace(/\|/g, '\\|'),
    );
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
