import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { type ConsumerProject, createConsumerProject } from './consumer-project.js';

// Every ```ts snippet of README.md and docs/*.md is a complete program a user can paste: each is
// type-checked as its own module of a fresh project (strict, noUncheckedIndexedAccess, nodenext)
// against the built package through its exports, and each fenced ```ts runnable is run with the
// emulator's REMOTE_BROWSER_* variables exported, leaving no session running.
const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

interface Snippet {
  /** `docs/launch.md:12`: where the fence opens. */
  where: string;
  file: string;
  code: string;
  runnable: boolean;
}

function snippetsOf(doc: string): Snippet[] {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const found: Snippet[] = [];
  for (const match of text.matchAll(/^```(ts|typescript)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)) {
    const line = text.slice(0, match.index).split('\n').length;
    const flags = (match[2] ?? '').trim();
    const name = `${doc.replace(/[/.]/g, '_')}_L${line}`;
    found.push({
      where: `${doc}:${line}`,
      file: `snippets/${name}.ts`,
      code: match[3] ?? '',
      runnable: flags === 'runnable',
    });
    if (flags !== '' && flags !== 'runnable') {
      throw new Error(`${doc}:${line}: unknown fence flags "${flags}" (only "runnable")`);
    }
  }
  return found;
}

const snippets = DOCS.flatMap(snippetsOf);
const runnable = snippets.filter((s) => s.runnable);

// The README's Playwright Test setup: the snippets that open with the file they are, as a user
// saves them (`// playwright.config.ts`, `// tests/<name>.spec.ts`).
const SUITE_FILE = /^\/\/ (playwright\.config\.ts|tests\/[\w-]+\.spec\.ts)\s*$/m;
const readmeSuite = snippetsOf('README.md').flatMap((s) => {
  const first = SUITE_FILE.exec(s.code.split('\n', 1)[0] ?? '');
  return first?.[1] ? [{ name: first[1], snippet: s }] : [];
});

let project: ConsumerProject;
let emu: EmulatorHandle;
let cacheDir: string;

beforeAll(async () => {
  project = createConsumerProject('rb-snippets-');
  for (const snippet of snippets) project.write(snippet.file, snippet.code);
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-snippets-ledger-'));
  emu = await startEmulator({ recordingPublicationDelayMs: 500 });
});

afterAll(async () => {
  await emu?.close();
  project?.remove();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('documentation snippets', () => {
  it('finds the snippets, and some of them are runnable', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(10);
    expect(runnable.length).toBeGreaterThanOrEqual(5);
  });

  it('are each a module that imports what it uses (a complete program, not a fragment)', () => {
    const fragments = snippets.filter((s) => !/^import\s/m.test(s.code)).map((s) => s.where);
    expect(fragments).toEqual([]);
  });

  it('type-check against the built package (strict, noUncheckedIndexedAccess, nodenext)', () => {
    const diagnostics = project.typecheck(snippets.map((s) => join(project.dir, s.file)));
    // Name each failure by the document line it comes from.
    const located = diagnostics.map((d) => {
      const snippet = snippets.find((s) => d.startsWith(s.file));
      return snippet ? `${snippet.where} (${d})` : d;
    });
    expect(located).toEqual([]);
  }, 300_000);

  it("README's Playwright Test setup runs as a suite (npx playwright test) on remote sessions, none left running", async () => {
    const names = readmeSuite.map((f) => f.name);
    expect(names).toContain('playwright.config.ts');
    expect(names.filter((n) => n.startsWith('tests/'))).not.toEqual([]);
    const suite = join(project.dir, 'readme-suite');
    for (const { name, snippet } of readmeSuite)
      project.write(`readme-suite/${name}`, snippet.code);
    const report = join(suite, 'report.json');
    const api = new BrowserApi({ baseUrl: emu.url, token: emu.token });
    const before = new Set((await api.sessions.list()).map((s) => s.id));
    // What `npx playwright test` runs, from the user's project folder.
    const result = await run(
      join(project.dir, 'node_modules/@playwright/test/cli.js'),
      {
        REMOTE_BROWSER_URL: emu.url,
        REMOTE_BROWSER_TOKEN: emu.token,
        REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
        REMOTE_BROWSER_CACHE_DIR: cacheDir,
        PLAYWRIGHT_JSON_OUTPUT_FILE: report,
      },
      { args: ['test', '--reporter=list,json'], cwd: suite },
    );
    expect(result, result.output).toMatchObject({ code: 0, signal: null });
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      stats: { expected: number; unexpected: number; flaky: number; skipped: number };
    };
    expect(json.stats).toMatchObject({ unexpected: 0, flaky: 0, skipped: 0 });
    expect(json.stats.expected).toBeGreaterThan(0);
    // The tests ran on sessions of this emulator, and every one of them was ended.
    const created = (await api.sessions.list()).filter((s) => !before.has(s.id));
    expect(created.length).toBeGreaterThan(0);
    expect((await emu.admin.state()).runningSessions).toBe(0);
    await api.close();
  }, 300_000);

  for (const snippet of runnable) {
    it(`${snippet.where} runs against the emulator and leaves no session running`, async () => {
      const js = ts.transpileModule(snippet.code, {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
        },
      }).outputText;
      const file = project.write(snippet.file.replace(/\.ts$/, '.mjs'), js);
      const result = await run(file, {
        REMOTE_BROWSER_URL: emu.url,
        REMOTE_BROWSER_TOKEN: emu.token,
        REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
        REMOTE_BROWSER_ACCOUNT_URL: emu.accountUrl,
        REMOTE_BROWSER_API_KEY: emu.apiKey,
        REMOTE_BROWSER_CACHE_DIR: cacheDir,
      });
      expect(result, result.output).toMatchObject({ code: 0, signal: null });
      // Printed objects are redacted: a snippet that logs a session never shows its secrets.
      expect(result.output).not.toContain(emu.token);
      expect(result.output).not.toContain(emu.proxyPassword);
      // The snippet ended what it created; nobody else uses this emulator.
      expect((await emu.admin.state()).runningSessions).toBe(0);
    }, 300_000);
  }
});

/** Runs a snippet as a user would (`node snippet.mjs`); a snippet that never ends is killed. */
function run(
  file: string,
  env: Record<string, string>,
  options: { args?: string[]; cwd?: string } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [file, ...(options.args ?? [])], {
      cwd: options.cwd ?? project.dir,
      // TMPDIR is the run's own (test/global/temp-leftovers.ts): what a snippet keeps for its
      // reader (a recording in a `videos-*` dir) is checked and removed at the end of the run.
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      output += '\n[killed: the snippet did not exit within 240 s (an unclosed browser?)]';
      child.kill('SIGKILL');
    }, 240_000);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, output });
    });
  });
}
