/**
 * P5's floor: where the peak RSS increase of a 200 MB download comes from, for the library's
 * `recordings.download` and a raw stream copy of the same URL, each in a fresh process, under
 * three regimes: V8's defaults, a 1 MB young generation (`--max-semi-space-size=1`), and a
 * forced GC every 20 ms. Prints the median (and max) peak increase of RSS, arrayBuffers and
 * heapUsed. Not a row of the table. Run: npx tsx bench/download-floor.ts [rounds=3]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createAdminClient } from '../src/emulator/admin-client.js';
import { median } from './stats.js';

const SIZE = 200 * 1024 * 1024;
const N = Number(process.argv[2] ?? 3);
const script = fileURLToPath(new URL('./emulator-child.ts', import.meta.url));
const emu = spawn(process.execPath, [...process.execArgv, script, '{"ffmpegPath":false}'], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const [line] = (await once(createInterface({ input: emu.stdout! }), 'line')) as [string];
const h = JSON.parse(line) as { url: string; token: string };
const dir = await mkdtemp(join(tmpdir(), 'p5exp-'));
const { sessionId } = await createAdminClient(h.url).addRecording({ sizeBytes: SIZE });
const child = fileURLToPath(new URL('./download-floor-child.ts', import.meta.url));
async function run(side: string, flags: string[], gcEvery = 0): Promise<Peak> {
  const p = spawn(
    process.execPath,
    [
      '--expose-gc',
      ...flags,
      ...process.execArgv,
      child,
      JSON.stringify({ url: h.url, token: h.token, sessionId, dir, side, gcEvery }),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [l] = (await once(createInterface({ input: p.stdout! }), 'line')) as [string];
  await once(p, 'exit');
  return JSON.parse(l) as Peak;
}
const variants: [string, string[], number][] = [
  ['default', [], 0],
  ['--max-semi-space-size=1', ['--max-semi-space-size=1'], 0],
  ['gc() every 20 ms', [], 4],
];
await run('b', []); // warm-up: the page cache of the emulator's file
interface Peak {
  ms: number;
  rss: number;
  ab: number;
  heap: number;
}
const res: Record<string, Peak[]> = {};
// Interleaved: each round runs every regime and side once, so load drift hits all alike.
for (let i = 0; i < N; i++) {
  for (const [name, flags, g] of variants) {
    for (const side of ['a', 'b']) {
      const key = `${name} ${side === 'a' ? 'library' : 'raw copy'}`;
      res[key] = [...(res[key] ?? []), await run(side, flags, g)];
    }
  }
}
for (const [k, xs] of Object.entries(res)) {
  const f = (key: keyof Peak) =>
    `${median(xs.map((x) => x[key])).toFixed(1)} (max ${Math.max(...xs.map((x) => x[key])).toFixed(1)})`;
  console.log(
    `${k.padEnd(42)} rss +${f('rss')} MB  arrayBuffers +${f('ab')}  heapUsed +${f('heap')}  ${median(xs.map((x) => x.ms)).toFixed(0)} ms`,
  );
}
await rm(dir, { recursive: true, force: true });
emu.stdin!.end();
await once(emu, 'exit');
