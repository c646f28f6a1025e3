import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isGuid,
  isInside,
  MAX_NAME_BYTES,
  moveExclusive,
  moveToFreeName,
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

  it('moveToFreeName() never takes an existing name: name (1).ext as Chromium does', async () => {
    writeFileSync(join(dir, 'report.csv'), 'mine');
    writeFileSync(join(dir, 'a'), 'first');
    writeFileSync(join(dir, 'b'), 'second');
    const first = await moveToFreeName(join(dir, 'a'), dir, 'report.csv');
    const second = await moveToFreeName(join(dir, 'b'), dir, 'report.csv');
    expect(first).toBe(join(dir, 'report (1).csv'));
    expect(second).toBe(join(dir, 'report (2).csv'));
    expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toBe('mine');
    expect(readFileSync(first, 'utf8')).toBe('first');
    expect(readFileSync(second, 'utf8')).toBe('second');
    expect(existsSync(join(dir, 'a'))).toBe(false);
  });

  it('moveToFreeName() gives two racing downloads of one name two files', async () => {
    writeFileSync(join(dir, 'a'), 'first');
    writeFileSync(join(dir, 'b'), 'second');
    const paths = await Promise.all([
      moveToFreeName(join(dir, 'a'), dir, 'x.txt'),
      moveToFreeName(join(dir, 'b'), dir, 'x.txt'),
    ]);
    expect(new Set(paths).size).toBe(2);
    expect(paths.map((p) => readFileSync(p, 'utf8')).sort()).toEqual(['first', 'second']);
  });

  it('moveExclusive() refuses to replace a file that is there, and moves into a free name', async () => {
    writeFileSync(join(dir, 'staged'), 'bytes');
    writeFileSync(join(dir, 'taken.txt'), 'mine');
    await expect(moveExclusive(join(dir, 'staged'), join(dir, 'taken.txt'))).rejects.toMatchObject({
      code: 'EEXIST',
      message: expect.stringMatching(/exists/),
    });
    expect(readFileSync(join(dir, 'taken.txt'), 'utf8')).toBe('mine');
    await moveExclusive(join(dir, 'staged'), join(dir, 'free.txt'));
    expect(readFileSync(join(dir, 'free.txt'), 'utf8')).toBe('bytes');
  });
});

/**
 * A user's script waits for a download by polling its folder and reads the file as soon as its
 * name is there (Puppeteer's `downloadBehavior` gives nothing else to wait on). The name must
 * appear with every byte: never an empty or half-copied file.
 */
async function readWhileMoving(from: string, move: () => Promise<string>): Promise<number[]> {
  const sizes: number[] = [];
  let done = false;
  const moved = move().finally(() => {
    done = true;
  });
  while (!done) {
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.') || name === 'staged') continue;
      try {
        sizes.push(statSync(join(dir, name)).size);
      } catch {}
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const path = await moved;
  sizes.push(statSync(path).size);
  expect(existsSync(from)).toBe(false);
  return sizes;
}

describe('a file appears whole', () => {
  const size = 32 * 1024 * 1024;

  it('on one file system: the name is there with all of its bytes or not at all', async () => {
    const staged = join(dir, 'staged');
    writeFileSync(staged, Buffer.alloc(size, 7));
    const sizes = await readWhileMoving(staged, () => moveToFreeName(staged, dir, 'big.bin'));
    expect(new Set(sizes)).toEqual(new Set([size]));
  });

  // /dev/shm is a tmpfs on Linux, another file system than the temp folder on these machines.
  const otherFs =
    existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev ? '/dev/shm' : '';

  it.runIf(otherFs)('across file systems: copied beside the name, then linked', async () => {
    const source = mkdtempSync(join(otherFs, 'rb-names-'));
    try {
      const staged = join(source, 'staged');
      writeFileSync(staged, Buffer.alloc(size, 7));
      const sizes = await readWhileMoving(staged, () => moveToFreeName(staged, dir, 'big.bin'));
      expect(new Set(sizes)).toEqual(new Set([size]));
      // The hidden companion the bytes were copied to is gone.
      expect(readdirSync(dir)).toEqual(['big.bin']);
      writeFileSync(staged, 'again');
      await expect(moveExclusive(staged, join(dir, 'big.bin'))).rejects.toMatchObject({
        code: 'EEXIST',
      });
      expect(statSync(join(dir, 'big.bin')).size).toBe(size);
      expect(readdirSync(dir)).toEqual(['big.bin']);
    } finally {
      rmSync(source, { recursive: true, force: true });
    }
  });
});
