import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireFreshDist } from '../helpers/fresh-dist.js';

// Every runnable example, as a user runs it: a fresh process importing the built package,
// against the embedded emulator (no REMOTE_BROWSER_* in the environment).
const examples = readdirSync('examples').filter((f) => f.endsWith('.ts') && !f.startsWith('_'));
const env = { ...process.env };
for (const key of Object.keys(env)) if (key.startsWith('REMOTE_BROWSER_')) delete env[key];

describe('examples', () => {
  beforeAll(() => requireFreshDist());

  it.each(examples)('examples/%s runs to completion against the emulator', (file) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', `examples/${file}`], {
      encoding: 'utf8',
      env,
      timeout: 180_000,
    });
    expect(r.status, `${file} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
  });
});
