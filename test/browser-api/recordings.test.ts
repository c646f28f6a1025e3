import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extensionFor } from '../../src/browser-api/resources/recording-download.js';
import { NotFoundError, ResponseTooLargeError, TimeoutError } from '../../src/http/errors.js';
import type { Handler, RecordedRequest } from '../helpers/http-server.js';
import { type ApiFixture, ok, startApi, wirePath } from './api-server.js';

let f: ApiFixture;
let dir: string;
beforeAll(async () => {
  f = await startApi();
  dir = await mkdtemp(join(tmpdir(), 'rb-recordings-'));
});
afterAll(async () => {
  await f.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  f.server.requests.length = 0;
});

// A WebM header followed by filler: big enough to arrive in several chunks.
const VIDEO = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(256 * 1024, 7)]);
const future = () => new Date(Date.now() + 10 * 60_000).toISOString();
const past = () => new Date(Date.now() - 60_000).toISOString();

function recording(id: string, version: string, expiresAt: string, primary = true) {
  return {
    id,
    is_primary: primary,
    duration_seconds: 3.2,
    size_bytes: VIDEO.length,
    video_url: `${f.server.origin}/signed/${id}.webm?v=${version}&sig=signature-${version}`,
    video_url_expires_at: expiresAt,
  };
}

/** Routes by path: the listing handler for the API, video bytes for fresh URLs, 403 for stale ones. */
function storage(list: () => unknown[], fresh: (req: RecordedRequest) => boolean): Handler {
  return (req, res) => {
    if (req.url.startsWith('/api/v2/browser/')) return ok(list())(req, res);
    if (!fresh(req)) {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end('<Error>Request has expired</Error>');
      return;
    }
    res.writeHead(200, { 'content-type': 'video/webm', 'content-length': String(VIDEO.length) });
    res.end(VIDEO);
  };
}

describe('recordings.list and waitForPublished', () => {
  it('lists a session recordings', async () => {
    const item = recording('r1', 'a', future());
    f.server.respond(ok([item]));
    expect(await f.api.sessions.recordings.list('s-1')).toEqual([item]);
    expect(wirePath(f.server.requests[0])).toBe('/sessions/s-1/recordings');
  });

  it('polls until the recordings are published', async () => {
    const item = recording('r1', 'a', future());
    f.server.respond(ok([]), ok([]), ok([item]));
    const published = await f.api.sessions.recordings.waitForPublished('s-1', { intervalMs: 5 });
    expect(published).toEqual([item]);
    expect(f.server.requests).toHaveLength(3);
  });

  it('gives up with a TimeoutError when nothing is published in time', async () => {
    f.server.respond(ok([]));
    await expect(
      f.api.sessions.recordings.waitForPublished('s-1', { intervalMs: 5, timeout: 60 }),
    ).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe('recordings.downloadWhenPublished', () => {
  it('waits until the recordings are published, then streams them to the dir', async () => {
    let listings = 0;
    f.server.respond(
      storage(
        () => (++listings <= 2 ? [] : [recording('r1', 'a', future())]),
        () => true,
      ),
    );
    const out = await f.api.sessions.recordings.downloadWhenPublished(
      's-2',
      { dir },
      { intervalMs: 5 },
    );
    expect(out.map((d) => d.path)).toEqual([join(dir, 's-2-r1.webm')]);
    expect((await readFile(join(dir, 's-2-r1.webm'))).equals(VIDEO)).toBe(true);
    const kinds = f.server.requests.map((r) => (r.url.startsWith('/signed/') ? 'video' : 'list'));
    // Three polls until published, the download's own listing, then the video.
    expect(kinds).toEqual(['list', 'list', 'list', 'list', 'video']);
  });

  it('gives up with a TimeoutError when nothing is published within the timeout, downloading nothing', async () => {
    f.server.respond(
      storage(
        () => [],
        () => true,
      ),
    );
    await expect(
      f.api.sessions.recordings.downloadWhenPublished(
        's-3',
        { dir },
        { intervalMs: 5, timeout: 60 },
      ),
    ).rejects.toBeInstanceOf(TimeoutError);
    expect(f.server.requests.filter((r) => r.url.startsWith('/signed/'))).toEqual([]);
    expect((await readdir(dir)).filter((name) => name.startsWith('s-3-'))).toEqual([]);
  });

  it('refuses an empty session id before any request', async () => {
    await expect(f.api.sessions.recordings.downloadWhenPublished('', { dir })).rejects.toThrow(
      /sessionId/,
    );
    expect(f.server.requests).toHaveLength(0);
  });
});

/** Answers the listing, and any signed URL with a 200 body that never ends (until the client goes). */
function endless(list: () => unknown[]): Handler {
  return (req, res) => {
    if (req.url.startsWith('/api/v2/browser/')) return ok(list())(req, res);
    res.writeHead(200, { 'content-type': 'video/webm' });
    const piece = Buffer.alloc(64 * 1024, 1);
    const more = () => {
      while (!res.destroyed && res.write(piece));
    };
    res.on('drain', more);
    more();
  };
}

describe('recordings.download', () => {
  it('ends a body that never ends past size_bytes and a margin, with a typed error and no file left', async () => {
    f.server.respond(endless(() => [recording('r1', 'a', future())]));
    const started = Date.now();
    const error = await f.api.sessions.recordings
      .download('s-endless', { dir })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    // size_bytes (256 KB) + 1 MiB: the default margin.
    expect((error as ResponseTooLargeError).limitBytes).toBe(VIDEO.length + 1024 * 1024);
    expect((error as Error).message).toMatch(
      /^recordings\.download\(s-endless\): the response body is larger than \d+ bytes/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await readdir(dir)).filter((name) => name.includes('s-endless'))).toEqual([]);
  });

  it('ends a streamed body past the maxBytes option with a typed error', async () => {
    f.server.respond(endless(() => [recording('r1', 'a', future())]));
    const sink = new PassThrough();
    let written = 0;
    sink.on('data', (chunk: Buffer) => {
      written += chunk.length;
    });
    const error = await f.api.sessions.recordings
      .download('s-endless', { stream: sink }, { maxBytes: 100_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limitBytes).toBe(100_000);
    expect(written).toBeLessThanOrEqual(100_000 + 64 * 1024);
  });

  it('fails the download, leaving no file, when onProgress throws', async () => {
    f.server.respond(
      storage(
        () => [recording('r1', 'a', future())],
        () => true,
      ),
    );
    const error = await f.api.sessions.recordings
      .download(
        's-9',
        { dir },
        {
          onProgress: () => {
            throw new Error('progress callback broke');
          },
        },
      )
      .catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/progress callback broke/);
    expect((await readdir(dir)).filter((name) => name.includes('s-9-'))).toEqual([]);
  });

  it('streams each recording to <sessionId>-<recordingId>.<ext> with progress, without an auth header', async () => {
    f.server.respond(
      storage(
        () => [recording('r1', 'a', future()), recording('r2', 'a', future(), false)],
        () => true,
      ),
    );
    const progress: number[] = [];
    const out = await f.api.sessions.recordings.download(
      's-1',
      { dir },
      { onProgress: (p) => p.recordingId === 'r1' && progress.push(p.receivedBytes) },
    );
    expect(out.map((d) => d.path)).toEqual([join(dir, 's-1-r1.webm'), join(dir, 's-1-r2.webm')]);
    expect(out[0]).toMatchObject({
      recordingId: 'r1',
      bytes: VIDEO.length,
      contentType: 'video/webm',
    });
    expect((await readFile(join(dir, 's-1-r1.webm'))).equals(VIDEO)).toBe(true);
    expect(progress.at(-1)).toBe(VIDEO.length);
    expect(progress.length).toBeGreaterThan(1);
    const signed = f.server.requests.filter((r) => r.url.startsWith('/signed/'));
    expect(signed.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
    expect((await readdir(dir)).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it('re-lists and retries once when the signed URL answers 403', async () => {
    let listings = 0;
    f.server.respond(
      storage(
        () => [recording('r1', listings++ === 0 ? 'stale' : 'fresh', future())],
        (req) => req.url.includes('v=fresh'),
      ),
    );
    const [done] = await f.api.sessions.recordings.download('s-2', { dir });
    expect(done?.recording.video_url).toContain('v=fresh');
    expect((await readFile(join(dir, 's-2-r1.webm'))).equals(VIDEO)).toBe(true);
    expect(f.server.requests.map((r) => r.url.replace(/\?.*/, ''))).toEqual([
      '/api/v2/browser/sessions/s-2/recordings',
      '/signed/r1.webm',
      '/api/v2/browser/sessions/s-2/recordings',
      '/signed/r1.webm',
    ]);
  });

  it('re-lists before fetching when video_url_expires_at has passed', async () => {
    let listings = 0;
    f.server.respond(
      storage(
        () => [
          listings++ === 0 ? recording('r1', 'old', past()) : recording('r1', 'new', future()),
        ],
        (req) => req.url.includes('v=new'),
      ),
    );
    await f.api.sessions.recordings.download('s-3', { dir });
    const signed = f.server.requests.filter((r) => r.url.startsWith('/signed/'));
    expect(signed.map((r) => r.url)).toEqual(['/signed/r1.webm?v=new&sig=signature-new']);
  });

  it('retries an expired URL only once, then reports the 403 and leaves no file', async () => {
    f.server.respond(
      storage(
        () => [recording('r1', 'stale', future())],
        () => false,
      ),
    );
    const error = await f.api.sessions.recordings.download('s-4', { dir }).catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(403);
    expect(String((error as Error).message)).not.toContain('signature-stale');
    expect(f.server.requests.filter((r) => r.url.startsWith('/signed/'))).toHaveLength(2);
    expect((await readdir(dir)).filter((n) => n.startsWith('s-4') || n.includes('.part'))).toEqual(
      [],
    );
  });

  it('saves recordings whose ids differ only in unsafe characters to distinct files', async () => {
    const ids = ['r/1', 'r?1', 'r:1', 'r_1'];
    const listed = ids.map((id, i) => ({
      ...recording(`x${i}`, 'a', future(), i === 0),
      id,
    }));
    f.server.respond(
      storage(
        () => listed,
        () => true,
      ),
    );
    const out = await f.api.sessions.recordings.download('s-16', { dir });
    const paths = out.map((d) => d.path);
    expect(new Set(paths).size).toBe(ids.length);
    // A safe id keeps its plain name; a sanitised one gets a short hash of the raw id.
    expect(paths[3]).toBe(join(dir, 's-16-r_1.webm'));
    for (const path of paths.slice(0, 3)) {
      expect(path).toMatch(/s-16-r_1-[0-9a-f]{8}\.webm$/);
    }
    const files = (await readdir(dir)).filter((name) => name.startsWith('s-16-'));
    expect(files.sort()).toEqual(paths.map((p) => p.slice(dir.length + 1)).sort());
    for (const path of paths) expect((await readFile(path)).equals(VIDEO)).toBe(true);
  });

  it('writes the primary recording to a stream target', async () => {
    f.server.respond(
      storage(
        () => [recording('r0', 'a', future(), false), recording('r1', 'a', future())],
        () => true,
      ),
    );
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    const [done] = await f.api.sessions.recordings.download('s-5', { stream: sink });
    expect(done?.recordingId).toBe('r1');
    expect(Buffer.concat(chunks).equals(VIDEO)).toBe(true);
    expect(sink.writableEnded).toBe(true);
  });

  it('downloads only the recording asked for', async () => {
    f.server.respond(
      storage(
        () => [recording('r1', 'a', future()), recording('r2', 'a', future(), false)],
        () => true,
      ),
    );
    const out = await f.api.sessions.recordings.download('s-6', { dir }, { recordingId: 'r2' });
    expect(out.map((d) => d.recordingId)).toEqual(['r2']);
  });

  it('explains that recordings appear after the session ends when none are listed', async () => {
    f.server.respond(ok([]));
    await expect(f.api.sessions.recordings.download('s-7', { dir })).rejects.toThrow(
      /waitForPublished/,
    );
  });

  it('passes a 404 of the listing through as NotFoundError', async () => {
    f.server.respond((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'session not found' }));
    });
    await expect(f.api.sessions.recordings.download('nope', { dir })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('extensionFor', () => {
  it('derives the file extension from the content type', () => {
    expect(extensionFor('video/webm; codecs=vp8')).toBe('webm');
    expect(extensionFor('video/mp4')).toBe('mp4');
    expect(extensionFor('video/x-flv')).toBe('x-flv');
    expect(extensionFor(undefined)).toBe('bin');
    expect(extensionFor('not a type/../../x')).toBe('bin');
  });
});
