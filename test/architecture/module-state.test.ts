/**
 * One registry (issue 37): no module of launch/, playwright/ or puppeteer/ keeps mutable
 * module-level state of its own except the ones listed here with the reason each is not
 * lifecycle state (docs/architecture.md says the same). Sessions, creates in flight, kept
 * sessions and their windows, slots and the process hooks installed are the registry's
 * (`tracker` in src/launch/tracker.ts). Read with the TypeScript parser: a top-level `let`, or a
 * top-level `const` holding a new Map, Set, WeakMap or WeakSet.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(fileURLToPath(new URL('../../src', import.meta.url)));
const FOLDERS = ['launch', 'playwright', 'puppeteer'];
const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);

/** `file: name` → why it may stay. */
const ALLOWED: Record<string, string> = {
  'launch/tracker.ts: tracker': 'the registry itself',
  'launch/parse-options.ts: SECRETS': 'a constant lookup table',
  'launch/drop-in-options.ts: warned': 'a warning said once per process (DESIGN.md)',
  'launch/preflight.ts: caches': 'a per-client cache, keyed by the client (WeakMap)',
  'launch/profiles.ts: pendingCreates': 'a per-client cache, keyed by the client (WeakMap)',
  'launch/browser-registry.ts: sessions': 'keyed by the native browser (WeakMap): ends with it',
  'launch/ledger.ts: compactedSize':
    "the ledger file's compaction sizes, shared with the watchdog child",
  'launch/metering.ts: recorder': "what sessions cost, fed by the registry's observer",
  'launch/metering.ts: processBudget': 'usage budgets, not a session',
  'launch/metering.ts: runBudget': 'usage budgets, not a session',
  'launch/metering.ts: poolBudgets': 'usage budgets, not a session',
  'launch/metering.ts: watcher': "the budgets' minutes watch",
  'launch/watchdog.ts: running': 'the watchdog child process of this process',
  'playwright/context-options.ts: APPLIED': 'a constant lookup table',
  'playwright/context-options.ts: EMULATED': 'a constant lookup table',
  'playwright/context-options.ts: remoteDefaultContexts': 'keyed by the context (WeakSet)',
  'playwright/context-options.ts: applied': 'keyed by the context (WeakSet)',
  'playwright/context-options.ts: emulationSessions': 'keyed by the page (WeakMap)',
  'playwright/extra-contexts.ts: warned': 'a warning said once per process (DESIGN.md)',
  'playwright/launch-options.ts: MAPPED': 'a constant lookup table',
  'puppeteer/drop-in.ts: MAPPED': 'a constant lookup table',
  'puppeteer/launch-remote.ts: answersOf':
    "keyed by the native browser (WeakMap): its close()'s wait for commands in flight",
  'puppeteer/transfers.ts: sessions': 'keyed by the native browser (WeakMap): ends with it',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Top-level `let`s and `const`s holding a new collection, as `file: name`. */
function moduleState(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const isLet = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      const collection =
        init !== undefined &&
        ts.isNewExpression(init) &&
        ts.isIdentifier(init.expression) &&
        COLLECTIONS.has(init.expression.text);
      const holdsInstance =
        init !== undefined && ts.isNewExpression(init) && /^[A-Z]/.test(init.expression.getText());
      if (isLet || collection || holdsInstance)
        found.push(`${relative(SRC, file)}: ${declaration.name.getText()}`);
    }
  }
  return found;
}

function stateIn(files: string[]): string[] {
  return files.flatMap((file) => moduleState(file, readFileSync(file, 'utf8')));
}

describe('module-level state', () => {
  it('only the registry, and the listed non-lifecycle state, live at module level', () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(join(SRC, folder)));
    const unlisted = stateIn(files).filter((entry) => !(entry in ALLOWED));
    expect(unlisted).toEqual([]);
  });

  it('finds a module-level let and a module-level Map (a planted file)', () => {
    const planted = [
      'let kept = 0;',
      'const byId = new Map<string, number>();',
      'const LIMIT = 3;',
      'export function f() { let local = 1; return local + LIMIT; }',
    ].join('\n');
    expect(moduleState(join(SRC, 'launch/planted.ts'), planted)).toEqual([
      'launch/planted.ts: kept',
      'launch/planted.ts: byId',
    ]);
  });
});
