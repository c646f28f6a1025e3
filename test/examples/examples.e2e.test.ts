import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEFTOVER_PATTERNS } from '../global/temp-leftovers.js';
import { requireFreshDist } from '../helpers/fresh-dist.js';

// Every runnable example, as a user runs it: a fresh process importing the built package,
// against the embedded emulator (no REMOTE_BROWSER_* in the environment).
const examples = readdirSync('examples').filter((f) => f.endsWith('.ts') && !f.startsWith('_'));
const env = { ...process.env };
for (const key of Object.keys(env)) if (key.startsWith('REMOTE_BROWSER_')) delete env[key];
// The recording example keeps what it downloaded for its user (it prints the path): here that
// lands in a temp dir of the test's own, removed afterwards, once it holds none of what the
// suite-wide leftover check looks for in the temp dir it no longer sees.
const examplesTmp = mkdtempSync(join(tmpdir(), 'rb-examples-'));
env.TMPDIR = examplesTmp;

/** Examples running at once: each is its own emulator and Chromium, and much of its time is waiting. */
const AT_ONCE = 2;
const TIMEOUT_MS = 180_000;

interface Run {
  status: number | null;
  output: string;
}

function runExample(file: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `examples/${file}`], { env });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => {
      output += `\n[killed: ${file} did not exit within ${TIMEOUT_MS} ms]`;
      child.kill('SIGKILL');
    }, TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

describe('examples', () => {
  const runs = new Map<string, Run>();
  afterAll(() => {
    const left = readdirSync(examplesTmp).filter((n) => LEFTOVER_PATTERNS.some((p) => p.test(n)));
    expect(left, 'what the examples left in their temp dir').toEqual([]);
    rmSync(examplesTmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  // The examples are independent processes: run them AT_ONCE at a time, then check each below.
  beforeAll(
    async () => {
      requireFreshDist();
      const queue = [...examples];
      const lane = async () => {
        for (let file = queue.shift(); file; file = queue.shift()) {
          runs.set(file, await runExample(file));
        }
      };
      await Promise.all(Array.from({ length: AT_ONCE }, lane));
    },
    TIMEOUT_MS * Math.ceil(examples.length / AT_ONCE) + 30_000,
  );

  it.each(examples)('examples/%s runs to completion against the emulator', (file) => {
    const r = runs.get(file);
    expect(r?.status, `${file} failed:\n${r?.output}`).toBe(0);
  });
});
