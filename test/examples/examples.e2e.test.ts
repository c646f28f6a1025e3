import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireFreshDist } from '../helpers/fresh-dist.js';

// Every runnable example, as a user runs it: a fresh process importing the built package,
// against the embedded emulator (no REMOTE_BROWSER_* in the environment).
const examples = readdirSync('examples').filter((f) => f.endsWith('.ts') && !f.startsWith('_'));
const env = { ...process.env };
for (const key of Object.keys(env)) if (key.startsWith('REMOTE_BROWSER_')) delete env[key];
// The recording example keeps what it downloaded for its user (it prints the path): that lands
// in the run's own temp dir (test/global/temp-leftovers.ts), checked and removed at the end.

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
