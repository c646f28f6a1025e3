import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

describe('isDebugEnabled patterns', () => {
  it('matches whole names with * as the only wildcard', () => {
    expect(isDebugEnabled('http', 'remote-browser:h.tp')).toBe(false);
    expect(isDebugEnabled('http', 'remote-browser:ht')).toBe(false);
    expect(isDebugEnabled('http', 'x-remote-browser:http')).toBe(false);
    expect(isDebugEnabled('http', 'remote-*')).toBe(true);
    expect(isDebugEnabled('http', 'remote-browser:(http)')).toBe(false);
  });

  it('splits on commas and spaces, and an exclusion wins wherever it stands', () => {
    expect(isDebugEnabled('http', 'other, remote-browser:http')).toBe(true);
    expect(isDebugEnabled('http', ',,remote-browser:http')).toBe(true);
    expect(isDebugEnabled('http', '-remote-browser:http remote-browser:*')).toBe(false);
    expect(isDebugEnabled('http', '-remote-browser:other remote-browser:*')).toBe(true);
    expect(isDebugEnabled('http', '')).toBe(false);
  });
});

describe('the default debug sink', () => {
  it('writes each line to stderr with a newline', () => {
    const previous = setDebugSink(() => {});
    setDebugSink(previous);
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      previous('remote-browser:http a line');
      expect(write).toHaveBeenCalledWith('remote-browser:http a line\n');
    } finally {
      write.mockRestore();
    }
  });
});
