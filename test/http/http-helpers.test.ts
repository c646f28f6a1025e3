/**
 * The small helpers under both clients, each pinned by the mutation pass (issue 18): fields held
 * out of JSON and inspect output, schemas built on first use, id path segments, and the shared,
 * load-once undici pieces.
 */
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/http/errors.js';
import { fullyRedacted, hideFields } from '../../src/http/hidden-fields.js';
import { lazySchema, zod } from '../../src/http/lazy-schema.js';
import * as builtins from '../../src/http/node-builtins.js';
import { sleep } from '../../src/http/node-builtins.js';
import { idSegment } from '../../src/http/path.js';
import { clearRegisteredSecrets, REDACTED, redact } from '../../src/http/redact.js';
import { sharedDispatcher } from '../../src/http/shared-dispatcher.js';
import { loadUndici } from '../../src/http/undici.js';

afterEach(() => clearRegisteredSecrets());

describe('hideFields', () => {
  it('masks string fields in JSON and inspect output, registers them, and keeps the value usable', () => {
    const value = {
      id: 'pw-hidden-field-1',
      cdp_url: 'ws://h/?token=hidden-field-token-1',
      count: 2,
    };
    const same = hideFields(value, {
      cdp_url: () => 'ws://h/?token=[REDACTED]',
      id: fullyRedacted,
    });
    expect(same).toBe(value);
    expect(value.cdp_url).toBe('ws://h/?token=hidden-field-token-1');
    expect(JSON.parse(JSON.stringify(value))).toEqual({
      id: REDACTED,
      cdp_url: 'ws://h/?token=[REDACTED]',
      count: 2,
    });
    const shown = inspect(value);
    expect(shown).toContain("cdp_url: 'ws://h/?token=[REDACTED]'");
    expect(shown).toContain('count: 2');
    expect(shown).not.toContain('hidden-field-token-1');
    expect(shown).not.toContain('pw-hidden-field-1');
    expect(Object.keys(value)).toEqual(['id', 'cdp_url', 'count']);
    expect(redact('the pw-hidden-field-1 here')).toBe(`the ${REDACTED} here`);
    // Twice on one value (a copy re-wrapped) is fine: the hooks stay configurable.
    expect(() => hideFields(value, { id: fullyRedacted })).not.toThrow();
  });

  it('leaves a value without such string fields untouched', () => {
    const value = { token: 5 };
    hideFields(value, { token: fullyRedacted, other: fullyRedacted });
    expect(Object.getOwnPropertyNames(value)).toEqual(['token']);
    expect(JSON.stringify(value)).toBe('{"token":5}');
  });

  it('masks only the fields that hold a string when the value is printed', () => {
    const value: Record<string, unknown> = { a: 'secret-a-123456', b: 'x' };
    hideFields(value, { a: fullyRedacted, b: fullyRedacted });
    value.b = 7;
    expect(JSON.parse(JSON.stringify(value))).toEqual({ a: REDACTED, b: 7 });
  });
});

describe('lazySchema', () => {
  it('builds on first use, once, and behaves as the built object', () => {
    let builds = 0;
    class Built {
      a = 1;
      get twice() {
        return this.a * 2;
      }
    }
    const lazy = lazySchema(() => {
      builds++;
      return new Built();
    });
    expect(builds).toBe(0);
    expect(lazy.twice).toBe(2);
    expect('a' in lazy).toBe(true);
    expect('b' in lazy).toBe(false);
    lazy.a = 5;
    expect(lazy.twice).toBe(10);
    expect(Object.getPrototypeOf(lazy)).toBe(Built.prototype);
    expect(lazy instanceof Built).toBe(true);
    expect(Object.keys(lazy)).toEqual(['a']);
    expect({ ...lazy }).toEqual({ a: 5 });
    expect(Object.getOwnPropertyDescriptor(lazy, 'a')).toMatchObject({
      value: 5,
      configurable: true,
    });
    expect(Object.getOwnPropertyDescriptor(lazy, 'nope')).toBeUndefined();
    expect(builds).toBe(1);
  });

  it('loads zod on first use', () => {
    expect(zod().string().parse('x')).toBe('x');
    expect(zod()).toBe(zod());
  });
});

describe('idSegment', () => {
  it('encodes an id, and rejects a non-string, blank, dot or multi-segment one naming the field', () => {
    expect(idSegment('w', 'id', 'a#b c?')).toBe('a%23b%20c%3F');
    expect(idSegment('w', 'id', '...')).toBe('...');
    for (const [id, message] of [
      [5, 'must be a string (got 5)'],
      [undefined, 'must be a string (got undefined)'],
      ['  ', 'must not be empty'],
      ['..', 'must not be ".." (a dot path segment)'],
      ['.', 'must not be "." (a dot path segment)'],
      ['a/b', 'must be a single path segment: no "/" or "\\"'],
      ['a\\b', 'must be a single path segment: no "/" or "\\"'],
    ] as const) {
      let error: unknown;
      try {
        idSegment('sessions.retrieve', 'id', id);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues).toEqual([{ path: 'id', message }]);
    }
  });
});

describe('undici and node helpers', () => {
  it('loads undici once and shares one keep-alive Agent', async () => {
    expect(loadUndici()).toBe(loadUndici());
    expect((await loadUndici()).Agent).toBe(Agent);
    const dispatcher = await sharedDispatcher();
    expect(dispatcher).toBeInstanceOf(Agent);
    expect(await sharedDispatcher()).toBe(dispatcher);
    // Idle sockets are kept 10 s (undici's default is 4 s). Waiting that long has no place in a
    // unit test, so this reads the options undici keeps under its `options` symbol: if a new
    // undici renames it, this fails loudly rather than passing.
    const optionsKey = Object.getOwnPropertySymbols(dispatcher).find(
      (key) => key.description === 'options',
    );
    expect(optionsKey).toBeDefined();
    expect(
      (dispatcher as unknown as Record<symbol, { keepAliveTimeout?: number }>)[optionsKey as symbol]
        ?.keepAliveTimeout,
    ).toBe(10_000);
  });

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
