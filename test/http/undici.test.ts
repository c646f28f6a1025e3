/** The shared, load-once undici pieces (issue 18). */
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { sharedDispatcher } from '../../src/http/shared-dispatcher.js';
import { loadUndici } from '../../src/http/undici.js';

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
});
