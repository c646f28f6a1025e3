import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDebug, isDebugEnabled, setDebugSink } from '../../src/http/debug.js';
import { clearRegisteredSecrets, registerSecret } from '../../src/http/redact.js';
import { setEnv } from '../helpers/env.js';

let restoreEnv: () => void;
beforeEach(() => {
  restoreEnv = setEnv({ DEBUG: process.env.DEBUG });
});
afterEach(() => {
  restoreEnv();
  clearRegisteredSecrets();
});

describe('debug logging', () => {
  it('is off by default and on for remote-browser:*', () => {
    expect(isDebugEnabled('http', undefined)).toBe(false);
    expect(isDebugEnabled('http', 'other:*')).toBe(false);
    expect(isDebugEnabled('http', 'remote-browser:*')).toBe(true);
    expect(isDebugEnabled('http', 'remote-browser:http')).toBe(true);
    expect(isDebugEnabled('http', 'remote-browser:*,-remote-browser:http')).toBe(false);
  });

  it('writes redacted lines only when enabled', () => {
    const lines: string[] = [];
    const previous = setDebugSink((line) => lines.push(line));
    try {
      registerSecret('debug-secret-777');
      const log = createDebug('http');
      delete process.env.DEBUG;
      log('hidden');
      process.env.DEBUG = 'remote-browser:*';
      log('using debug-secret-777 at ws://h/?token=abc');
      expect(lines).toEqual(['remote-browser:http using [REDACTED] at ws://h/?token=[REDACTED]']);
    } finally {
      setDebugSink(previous);
    }
  });
});
