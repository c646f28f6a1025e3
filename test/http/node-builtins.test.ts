/** Node built-ins handed out by name (issue 18). */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as builtins from '../../src/http/node-builtins.js';
import { sleep } from '../../src/http/node-builtins.js';

describe('undici and node helpers', () => {
  it('hands out each Node built-in module by its name', async () => {
    const require = createRequire(import.meta.url);
    const pairs: [() => object, string][] = [
      [builtins.nodeFs, 'node:fs'],
      [builtins.nodeFsPromises, 'node:fs/promises'],
      [builtins.nodePath, 'node:path'],
      [builtins.nodeUrl, 'node:url'],
      [builtins.nodeModule, 'node:module'],
      [builtins.nodeOs, 'node:os'],
      [builtins.nodeUtil, 'node:util'],
      [builtins.nodeCrypto, 'node:crypto'],
      [builtins.nodeStream, 'node:stream'],
      [builtins.nodeChildProcess, 'node:child_process'],
    ];
    for (const [load, name] of pairs) expect(load()).toBe(require(name));
  });

  it('sleeps and resolves with the value', async () => {
    expect(await sleep(1, 'v')).toBe('v');
  });
});
