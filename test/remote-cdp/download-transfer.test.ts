import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CdpSession } from '../../src/remote-cdp/cdp-channel.js';
import {
  cdpStream,
  DownloadTooLargeError,
  stageChunks,
} from '../../src/remote-cdp/download-transfer.js';

/**
 * A browser's CDP stream of `bytes`, as Chromium serves it: each `IO.read` answers the next
 * `size` bytes (base64) a tick later, in the order asked; past the end, `eof` with no data.
 */
function fakeStream(bytes: Buffer, { failAt }: { failAt?: number } = {}) {
  let at = 0;
  let reads = 0;
  let inFlight = 0;
  const state = { maxInFlight: 0, sizes: [] as number[], closed: 0, readsAfterClose: 0 };
  const session = {
    send: async (method: string, params: { handle: string; size?: number }) => {
      expect(params.handle).toBe('h1');
      if (method === 'IO.close') {
        state.closed++;
        return {};
      }
      if (state.closed) state.readsAfterClose++;
      const n = reads++;
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      state.sizes.push(params.size ?? -1);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      if (n === failAt) throw new Error('Read failed');
      const chunk = bytes.subarray(at, at + (params.size ?? bytes.length));
      at += chunk.length;
      return { data: chunk.toString('base64'), base64Encoded: true, eof: at >= bytes.length };
    },
  } as unknown as CdpSession;
  return { session, state };
}

const bytesOf = (size: number) => {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = (i * 2654435761) >>> 24;
  return out;
};

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
}

describe('cdpStream', () => {
  it('yields every byte in order with several small reads on the wire at once, then closes', async () => {
    const bytes = bytesOf(3 * 1024 * 1024 + 123);
    const { session, state } = fakeStream(bytes);
    const got = await collect(cdpStream(session, 'h1'));
    expect(got.equals(bytes)).toBe(true);
    // Pipelined, so a round trip is not paid per chunk…
    expect(state.maxInFlight).toBeGreaterThan(1);
    // …and each chunk small enough that its base64 text stays out of V8's large-object space.
    expect(Math.max(...state.sizes)).toBeLessThanOrEqual(96 * 1024);
    expect(state.closed).toBe(1);
  });

  it('closes the stream when the consumer stops early, leaving no read unhandled', async () => {
    const { session, state } = fakeStream(bytesOf(2 * 1024 * 1024));
    for await (const chunk of cdpStream(session, 'h1')) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    expect(state.closed).toBe(1);
    // The reads still on the wire settle after the close without an unhandled rejection.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it('rejects with the failed read, in its place, and still closes the stream', async () => {
    const { session, state } = fakeStream(bytesOf(2 * 1024 * 1024), { failAt: 3 });
    const seen: Buffer[] = [];
    await expect(
      (async () => {
        for await (const chunk of cdpStream(session, 'h1')) seen.push(chunk);
      })(),
    ).rejects.toThrow('Read failed');
    expect(seen).toHaveLength(3);
    expect(state.closed).toBe(1);
  });

  it('ends on an empty stream', async () => {
    const { session, state } = fakeStream(Buffer.alloc(0));
    expect((await collect(cdpStream(session, 'h1'))).length).toBe(0);
    expect(state.closed).toBe(1);
  });
});

describe('stageChunks', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the chunks to a new file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rb-transfer-'));
    const path = join(dir, 'a.bin');
    const bytes = bytesOf(300_000);
    const { session } = fakeStream(bytes);
    await stageChunks(cdpStream(session, 'h1'), path, 'https://x.test/a', 1024 * 1024);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('fails over maxBytes with DownloadTooLargeError, removes the partial file and closes the stream', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rb-transfer-'));
    const path = join(dir, 'a.bin');
    const { session, state } = fakeStream(bytesOf(1024 * 1024));
    const error = await stageChunks(cdpStream(session, 'h1'), path, 'https://x.test/a', 100_000)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadTooLargeError);
    expect((error as DownloadTooLargeError).maxBytes).toBe(100_000);
    expect(existsSync(path)).toBe(false);
    expect(state.closed).toBe(1);
  });
});
