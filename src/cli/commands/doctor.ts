/**
 * `remote-browser doctor`: what this machine and the configured services look like. The
 * service does not report a token's expiry, so doctor remembers when this machine first saw
 * each token (a hash of it, never the token) and prints the latest possible expiry: 7 days later.
 */
import type { Command } from 'commander';
import { accountApi, browserApi } from '../clients.js';
import { describeError } from '../errors.js';
import { act, type Runtime, withJson } from '../kit.js';
import type { Output } from '../output.js';
import { spinner } from '../progress.js';

type Status = 'ok' | 'warn' | 'fail' | 'skip';

interface Check {
  name: string;
  status: Status;
  detail: string;
}

const TOKEN_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000;
const MIN_NODE = [20, 19];

export function register(program: Command, rt: Runtime): void {
  withJson(
    program
      .command('doctor')
      .description(
        'check Node, the peer libraries, Chromium and ffmpeg, and the configured services',
      )
      .option(
        '--geo <session-id>',
        "instead: check that a running session's page agrees with its exit (time zone, languages, Accept-Language, position); exit 1 on a mismatch",
      ),
  ).action(
    act(rt, async (out, _args, opts) => {
      if (typeof opts.geo === 'string') {
        const { doctorGeo } = await import('../geo-doctor.js');
        return doctorGeo(out, rt, opts.geo);
      }
      const spin = spinner(out, 'checking…');
      const checks: Check[] = [];
      try {
        checks.push(nodeCheck(), ...(await peerChecks(rt)), ...(await toolChecks()));
        checks.push(...(await browserChecks(rt)), await accountCheck(rt));
      } finally {
        spin.stop();
      }
      out.result({ checks }, () => print(out, checks));
      return checks.some((c) => c.status === 'fail') ? 1 : 0;
    }),
  );
}

function print(out: Output, checks: Check[]): void {
  const p = out.paint;
  const mark: Record<Status, string> = {
    ok: p.green('✓'),
    warn: p.yellow('!'),
    fail: p.red('✗'),
    skip: p.dim('-'),
  };
  const width = Math.max(...checks.map((c) => c.name.length));
  for (const c of checks) out.line(`${mark[c.status]} ${c.name.padEnd(width)}  ${c.detail}`);
}

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok =
    major > (MIN_NODE[0] as number) || (major === MIN_NODE[0] && minor >= (MIN_NODE[1] as number));
  return {
    name: 'node',
    status: ok ? 'ok' : 'fail',
    detail: `${process.versions.node}${ok ? '' : ' (needs 20.19 or later)'}`,
  };
}

async function peerChecks(rt: Runtime): Promise<Check[]> {
  const { createRequire } = await import('node:module');
  const { join } = await import('node:path');
  const { readFile } = await import('node:fs/promises');
  const require = createRequire(join(rt.io.cwd ?? process.cwd(), 'package.json'));
  const checks: Check[] = [];
  for (const name of ['playwright-core', '@playwright/test', 'puppeteer-core']) {
    try {
      // The package.json, never the library: doctor must not load it.
      const path = require.resolve(`${name}/package.json`);
      const { version } = JSON.parse(await readFile(path, 'utf8')) as { version: string };
      checks.push({ name, status: 'ok', detail: version });
    } catch {
      checks.push({ name, status: 'skip', detail: 'not installed (optional peer)' });
    }
  }
  return checks;
}

async function toolChecks(): Promise<Check[]> {
  const { findChromium, findFfmpeg } = await import('../../emulator/index.js');
  const checks: Check[] = [];
  try {
    checks.push({ name: 'chromium', status: 'ok', detail: findChromium() });
  } catch (error) {
    checks.push({
      name: 'chromium',
      status: 'warn',
      detail: `${(error as Error).message.split('\n')[0]} (only the emulator needs it)`,
    });
  }
  const ffmpeg = findFfmpeg();
  checks.push(
    ffmpeg.path
      ? { name: 'ffmpeg', status: 'ok', detail: ffmpeg.path }
      : {
          name: 'ffmpeg',
          status: 'warn',
          detail: `${'reason' in ffmpeg ? ffmpeg.reason : 'not found'}: emulator recordings off`,
        },
  );
  return checks;
}

function failed(name: string, error: unknown): Check {
  const d = describeError(error);
  return { name, status: 'fail', detail: `${d.message}${d.hint ? ` (hint: ${d.hint})` : ''}` };
}

async function browserChecks(rt: Runtime): Promise<Check[]> {
  const env = rt.io.env;
  if (!env.REMOTE_BROWSER_URL && !env.REMOTE_BROWSER_TOKEN) {
    return [
      {
        name: 'browser service',
        status: 'skip',
        detail: 'REMOTE_BROWSER_URL and REMOTE_BROWSER_TOKEN not set',
      },
    ];
  }
  let api: Awaited<ReturnType<typeof browserApi>>;
  try {
    api = await browserApi(rt.io);
  } catch (error) {
    return [failed('browser service', error)];
  }
  try {
    const started = Date.now();
    await api.sessions.list({ status: 'running', limit: 1 });
    const checks: Check[] = [
      {
        name: 'browser service',
        status: 'ok',
        detail: `${api.origin} answered in ${Date.now() - started} ms`,
      },
      tokenCheck(rt, await firstSeen(rt, env.REMOTE_BROWSER_TOKEN as string)),
    ];
    checks.push(
      env.REMOTE_BROWSER_PROXY_PASSWORD
        ? { name: 'proxy password', status: 'ok', detail: 'set' }
        : {
            name: 'proxy password',
            status: 'warn',
            detail: 'REMOTE_BROWSER_PROXY_PASSWORD not set: sessions cannot be created',
          },
    );
    return checks;
  } catch (error) {
    return [failed('browser service', error)];
  } finally {
    await api.close();
  }
}

function tokenCheck(_rt: Runtime, seen: number): Check {
  const latest = seen + TOKEN_VALIDITY_MS;
  const daysLeft = (latest - Date.now()) / (24 * 60 * 60 * 1000);
  return {
    name: 'token',
    status: daysLeft < 1 ? 'warn' : 'ok',
    detail: `accepted; expires by ${new Date(latest).toISOString()} at the latest (7 days; first seen here ${new Date(seen).toISOString()})`,
  };
}

/** When this machine first saw the token, from a small file of token hashes in the cache dir. */
async function firstSeen(rt: Runtime, token: string): Promise<number> {
  const { createHash } = await import('node:crypto');
  const { mkdir, readFile, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { cacheDir } = await import('../../launch/index.js');
  const dir = cacheDir(rt.io.env);
  const file = join(dir, 'tokens-seen.json');
  const key = createHash('sha256').update(token).digest('hex').slice(0, 16);
  let seen: Record<string, number> = {};
  try {
    seen = JSON.parse(await readFile(file, 'utf8')) as Record<string, number>;
  } catch {}
  const now = Date.now();
  // Forget tokens that have expired anyway.
  for (const [k, at] of Object.entries(seen)) if (now - at > TOKEN_VALIDITY_MS * 2) delete seen[k];
  if (seen[key] === undefined) {
    seen[key] = now;
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(file, JSON.stringify(seen), { mode: 0o600 });
    } catch {}
  }
  return seen[key] as number;
}

async function accountCheck(rt: Runtime): Promise<Check> {
  const env = rt.io.env;
  if (!env.REMOTE_BROWSER_ACCOUNT_URL && !env.REMOTE_BROWSER_API_KEY) {
    return {
      name: 'account service',
      status: 'skip',
      detail: 'REMOTE_BROWSER_ACCOUNT_URL and REMOTE_BROWSER_API_KEY not set',
    };
  }
  let api: Awaited<ReturnType<typeof accountApi>>;
  try {
    api = await accountApi(rt.io);
  } catch (error) {
    return failed('account service', error);
  }
  try {
    const { balance } = await api.balance();
    return {
      name: 'account service',
      status: 'ok',
      detail: `API key accepted; ${balance} credits`,
    };
  } catch (error) {
    if ((error as Error).name === 'PermissionDeniedError') {
      return {
        name: 'account service',
        status: 'warn',
        detail: 'API key accepted; no credit pack purchased yet (queries locked)',
      };
    }
    return failed('account service', error);
  } finally {
    await api.close();
  }
}
