import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimFreeName,
  isGuid,
  isInside,
  MAX_NAME_BYTES,
  moveExclusive,
  safeFileName,
} from '../../src/remote-cdp/download-names.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rb-names-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('isGuid', () => {
  it('takes the UUIDs Chromium names downloads with, and nothing else', () => {
    expect(isGuid('0b1e4e4c-6c0b-4a53-9e0c-53b5a2a5e1f7')).toBe(true);
    expect(isGuid('../escaped/.bashrc')).toBe(false);
    expect(isGuid('0b1e4e4c-6c0b-4a53-9e0c-53b5a2a5e1f7/../../x')).toBe(false);
    expect(isGuid('')).toBe(false);
  });
});

describe('safeFileName', () => {
  it('reduces a name to a base name: no separators, no .., no NUL', () => {
    expect(safeFileName('../name.txt')).toBe('name.txt');
    expect(safeFileName('..\\..\\win.ini')).toBe('win.ini');
    expect(safeFileName('/etc/passwd')).toBe('passwd');
    expect(safeFileName('a\u0000b.txt')).toBe('a_b.txt');
    expect(safeFileName('..')).toBe('download');
    expect(safeFileName('')).toBe('download');
    expect(safeFileName('.bashrc')).toBe('bashrc');
  });

  it('shortens a long name to 255 bytes keeping its extension, never dropping it', () => {
    const long = `${'é'.repeat(300)}.pdf`;
    const safe = safeFileName(long);
    expect(Buffer.byteLength(safe)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(safe.endsWith('.pdf')).toBe(true);
    expect(safe.startsWith('éé')).toBe(true);
  });
});

describe('placing a file', () => {
  it('isInside() holds a path to its folder', () => {
    expect(isInside(dir, join(dir, 'a.txt'))).toBe(true);
    expect(isInside(dir, join(dir, '..', 'a.txt'))).toBe(false);
    expect(isInside(dir, dir)).toBe(false);
  });

  it('claimFreeName() never takes an existing name: name (1).ext as Chromium does', async () => {
    writeFileSync(join(dir, 'report.csv'), 'mine');
    const first = await claimFreeName(dir, 'report.csv');
    const second = await claimFreeName(dir, 'report.csv');
    expect(first).toBe(join(dir, 'report (1).csv'));
    expect(second).toBe(join(dir, 'report (2).csv'));
    expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toBe('mine');
  });

  it('moveExclusive() refuses to replace a file that is there, and moves into a free name', async () => {
    writeFileSync(join(dir, 'staged'), 'bytes');
    writeFileSync(join(dir, 'taken.txt'), 'mine');
    await expect(moveExclusive(join(dir, 'staged'), join(dir, 'taken.txt'), false)).rejects.toThrow(
      /exists/,
    );
    expect(readFileSync(join(dir, 'taken.txt'), 'utf8')).toBe('mine');
    await moveExclusive(join(dir, 'staged'), join(dir, 'free.txt'), false);
    expect(readFileSync(join(dir, 'free.txt'), 'utf8')).toBe('bytes');
  });
});
