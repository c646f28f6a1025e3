import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setInputFilesFromClient, UploadFileError } from '../../src/remote-cdp/uploads.js';

/**
 * A page as CDP shows it: `Runtime.callFunctionOn` calls run one after another in the order
 * sent, each answered 2 ms later (a round trip). The holder's pushes rebuild each file's bytes.
 */
function fakePage({ refuseAt }: { refuseAt?: number } = {}) {
  const state = {
    files: [] as { name: string; type: string; bytes: Buffer }[],
    parts: [] as Buffer[],
    pushes: 0,
    maxPushBytes: 0,
    inFlight: 0,
    maxInFlight: 0,
    assigned: 0,
    released: [] as string[],
  };
  const send = async (method: string, params?: object) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 2));
    state.inFlight--;
    const p = params as {
      objectId?: string;
      functionDeclaration?: string;
      arguments?: { value?: unknown }[];
    };
    if (method === 'Runtime.releaseObject') {
      state.released.push(p.objectId!);
      return {};
    }
    expect(method).toBe('Runtime.callFunctionOn');
    const fn = p.functionDeclaration ?? '';
    const args = (p.arguments ?? []).map((a) => a.value);
    if (fn.includes('parts: []')) return { result: { objectId: 'holder-1' } };
    if (fn.includes('this.parts.push')) {
      const n = state.pushes++;
      if (n === refuseAt)
        return {
          exceptionDetails: { text: 'Uncaught', exception: { description: 'RangeError: no room' } },
        };
      const bytes = Buffer.from(args[0] as string, 'base64');
      state.maxPushBytes = Math.max(state.maxPushBytes, bytes.length);
      state.parts.push(bytes);
      return {};
    }
    if (fn.includes('new File')) {
      state.files.push({
        name: args[0] as string,
        type: args[1] as string,
        bytes: Buffer.concat(state.parts),
      });
      state.parts = [];
      return {};
    }
    if (fn.includes('DataTransfer')) {
      state.assigned++;
      return {};
    }
    throw new Error(`unexpected call ${fn.slice(0, 40)}`);
  };
  return { send, state };
}

const bytesOf = (size: number, seed: number) => {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = ((i + seed) * 2654435761) >>> 24;
  return out;
};

describe('setInputFilesFromClient', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rb-uploads-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds every file in the page in order, with several small chunks on the wire at once', async () => {
    const a = bytesOf(2 * 1024 * 1024 + 17, 1);
    const b = bytesOf(1000, 2);
    writeFileSync(join(dir, 'a.bin'), a);
    writeFileSync(join(dir, 'b.txt'), b);
    const { send, state } = fakePage();
    await setInputFilesFromClient(send, {
      objectId: 'input-1',
      files: [join(dir, 'a.bin'), join(dir, 'b.txt')],
    });
    expect(state.files.map((f) => [f.name, f.type])).toEqual([
      ['a.bin', 'application/octet-stream'],
      ['b.txt', 'text/plain'],
    ]);
    expect(state.files[0]!.bytes.equals(a)).toBe(true);
    expect(state.files[1]!.bytes.equals(b)).toBe(true);
    expect(state.assigned).toBe(1);
    // Pipelined (no round trip per chunk), each chunk small enough to die young in V8.
    expect(state.maxInFlight).toBeGreaterThan(1);
    expect(state.maxPushBytes).toBeLessThanOrEqual(96 * 1024);
    expect(state.released).toEqual(['holder-1']);
  });

  it('fails with the page’s reason when a chunk is refused, assigns nothing and releases the holder', async () => {
    writeFileSync(join(dir, 'a.bin'), bytesOf(1024 * 1024, 3));
    const { send, state } = fakePage({ refuseAt: 2 });
    const error = await setInputFilesFromClient(send, {
      objectId: 'input-1',
      files: [join(dir, 'a.bin')],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadFileError);
    expect((error as Error).message).toContain('RangeError: no room');
    expect(state.assigned).toBe(0);
    expect(state.files).toHaveLength(0);
    expect(state.released).toEqual(['holder-1']);
  });

  it('refuses a path that is not a readable file before sending anything', async () => {
    const { send, state } = fakePage();
    await expect(
      setInputFilesFromClient(send, { objectId: 'input-1', files: [join(dir, 'missing.bin')] }),
    ).rejects.toThrow(/missing\.bin" cannot be read on the client \(ENOENT\)/);
    await expect(
      setInputFilesFromClient(send, { objectId: 'input-1', files: [dir] }),
    ).rejects.toThrow(/is not a file/);
    expect(state.pushes).toBe(0);
  });
});
