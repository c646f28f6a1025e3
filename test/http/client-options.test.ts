/**
 * The option checks of both clients' constructors, each pinned by the mutation pass (issue 18):
 * every rule names the field, the rule and what it got, and a secret's value is never shown.
 */
import { describe, expect, it } from 'vitest';
import {
  checkCommonOptions,
  OptionChecks,
  optionsRoot,
  shownOption,
} from '../../src/http/client-options.js';
import { RequestValidationError } from '../../src/http/errors.js';
import { shown } from '../../src/http/request-validation.js';

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return [...(error as RequestValidationError).issues];
  }
  throw new Error('did not throw');
}

describe('shownOption and shown', () => {
  it.each([
    ['x'.repeat(40), JSON.stringify('x'.repeat(40))],
    ['y'.repeat(41), JSON.stringify(`${'y'.repeat(40)}…`)],
    [null, 'null'],
    [5, '5'],
    [undefined, 'undefined'],
    [[1], 'an array'],
    [{ a: 1 }, 'an object'],
  ])('shows %j as %s, in both', (value, text) => {
    expect(shownOption(value)).toBe(text);
    expect(shown(value)).toBe(text);
  });
});

describe('OptionChecks', () => {
  it('names each broken rule with what it got, and a secret only by its type', () => {
    const checks = new OptionChecks('new BrowserApi');
    checks.string('token', 12345, true);
    checks.string('baseUrl', 7);
    checks.string('fine', 'yes');
    checks.boolean('flag', 'yes');
    checks.boolean('ok', false);
    checks.timeout('timeout', -1);
    checks.timeout('fine', 5);
    checks.signal('signal', 'stop');
    checks.signal('fine', AbortSignal.abort());
    checks.signal('absent', undefined);
    expect(checks.object('o1', null)).toBe(false);
    expect(checks.object('o2', [1])).toBe(false);
    expect(checks.object('o3', {})).toBe(true);
    expect(checks.object('o4', undefined)).toBe(true);
    expect(checks.issues).toEqual([
      { path: 'token', message: 'must be a string (got number)' },
      { path: 'baseUrl', message: 'must be a string (got 7)' },
      { path: 'flag', message: 'must be true or false (got "yes")' },
      {
        path: 'timeout',
        message: 'must be a number of ms >= 0 (0 or Infinity: no timeout); got -1',
      },
      { path: 'signal', message: 'must be an AbortSignal (got "stop")' },
      { path: 'o1', message: 'must be an object (got null)' },
      { path: 'o2', message: 'must be an object (got an array)' },
    ]);
    expect(() => checks.done()).toThrow(
      /^new BrowserApi: invalid options: token: must be a string \(got number\); baseUrl/,
    );
    expect(() => new OptionChecks('w').done()).not.toThrow();
  });

  it.each([
    [0, { min: 0 }, undefined],
    [0, { min: 0, exclusiveMin: true }, 'must be a number > 0 (got 0)'],
    [0.5, { min: 0, exclusiveMin: true }, undefined],
    [-1, { min: 0 }, 'must be a number >= 0 (got -1)'],
    [1.5, { min: 0, integer: true }, 'must be an integer >= 0 (got 1.5)'],
    [2, { min: 0, integer: true }, undefined],
    [Number.POSITIVE_INFINITY, { min: 0 }, undefined],
    [Number.POSITIVE_INFINITY, { min: 0, finite: true }, 'must be a number >= 0 (got Infinity)'],
    [Number.NaN, { min: 0 }, 'must be a number >= 0 (got NaN)'],
    ['3', { min: 0 }, 'must be a number >= 0 (got "3")'],
    [undefined, { min: 1 }, undefined],
  ])('number %s under %j', (value, rule, message) => {
    const checks = new OptionChecks('w');
    checks.number('n', value, rule);
    expect(checks.issues).toEqual(message ? [{ path: 'n', message }] : []);
  });
});

describe('checkCommonOptions and optionsRoot', () => {
  const issues = (options: Record<string, unknown>) => {
    const checks = new OptionChecks('w');
    checks.string('other', 1);
    checks.issues.length = 0;
    checkCommonOptions(checks, options, 'apiKey');
    return checks.issues.map((i) => i.path);
  };

  it('shows a credential only by its type, and says what a dispatcher must be', () => {
    const checks = new OptionChecks('w');
    checkCommonOptions(checks, { apiKey: 12345, dispatcher: {} }, 'apiKey');
    expect(checks.issues).toEqual([
      { path: 'apiKey', message: 'must be a string (got number)' },
      {
        path: 'dispatcher',
        message: 'must be an undici Dispatcher (an Agent, Pool or ProxyAgent)',
      },
    ]);
  });

  it('checks the credential, URL, timeout, each retry field and the dispatcher', () => {
    expect(issues({})).toEqual([]);
    expect(
      issues({
        apiKey: 5,
        baseUrl: 5,
        timeout: 'x',
        retry: { retries: 1.5, baseDelayMs: -1, maxDelayMs: Number.NaN, maxRetryAfterMs: -1 },
        dispatcher: {},
      }),
    ).toEqual([
      'apiKey',
      'baseUrl',
      'timeout',
      'retry.retries',
      'retry.baseDelayMs',
      'retry.maxDelayMs',
      'retry.maxRetryAfterMs',
      'dispatcher',
    ]);
    expect(issues({ retry: 'fast', dispatcher: null })).toEqual(['retry', 'dispatcher']);
    expect(issues({ retry: {}, dispatcher: { dispatch() {} } })).toEqual([]);
    const fine = { retries: 1, baseDelayMs: 5, maxDelayMs: 5, maxRetryAfterMs: 5 };
    expect(issues({ retry: fine })).toEqual([]);
    const endless = { baseDelayMs: Number.POSITIVE_INFINITY, maxDelayMs: Number.POSITIVE_INFINITY };
    expect(issues({ retry: endless })).toEqual(['retry.baseDelayMs', 'retry.maxDelayMs']);
    expect(issues({ retry: { retries: Number.POSITIVE_INFINITY } })).toEqual(['retry.retries']);
    expect(issues({ retry: { maxRetryAfterMs: Number.POSITIVE_INFINITY } })).toEqual([]);
  });

  it('takes maxResponseBytes as a positive integer only', () => {
    expect(issues({ maxResponseBytes: 1024 })).toEqual([]);
    for (const bad of [0, -1, 1.5, '16MB', Number.NaN]) {
      expect(issues({ maxResponseBytes: bad })).toEqual(['maxResponseBytes']);
    }
  });

  it('takes an object or nothing as the options root', () => {
    const options = { a: 1 };
    expect(optionsRoot('w', options)).toBe(options);
    expect(optionsRoot('w', undefined)).toEqual({});
    expect(() => optionsRoot('new AccountApi', 'x')).toThrow(
      'new AccountApi: invalid options: options: must be an object (got "x")',
    );
    for (const bad of ['x', null, [1]]) {
      expect(issuesOf(() => optionsRoot('w', bad))).toEqual([
        { path: 'options', message: `must be an object (got ${shownOption(bad)})` },
      ]);
    }
  });
});
