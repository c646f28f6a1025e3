/**
 * The error classes' names, guards, JSON and inspect output, each pinned by the mutation pass
 * (issue 18): a guard must also know an error from another copy of the package (by name, or by a
 * parent class's name), and what an error prints must carry its fields and stay redacted.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import * as E from '../../src/http/errors.js';
import { clearRegisteredSecrets, registerSecret } from '../../src/http/redact.js';

afterEach(() => clearRegisteredSecrets());

const init = { status: 400, method: 'GET', path: '/p', message: 'm', body: { a: 1 } };

const cases: [() => Error, string][] = [
  [() => new E.RemoteBrowserError('x'), 'RemoteBrowserError'],
  [() => new E.ApiError(init), 'ApiError'],
  [() => new E.BadRequestError(init), 'BadRequestError'],
  [() => new E.AuthenticationError(init), 'AuthenticationError'],
  [() => new E.PaymentRequiredError(init), 'PaymentRequiredError'],
  [() => new E.PermissionDeniedError(init), 'PermissionDeniedError'],
  [() => new E.NotFoundError(init), 'NotFoundError'],
  [() => new E.ConflictError(init), 'ConflictError'],
  [() => new E.RateLimitError(init), 'RateLimitError'],
  [() => new E.UpstreamError(init), 'UpstreamError'],
  [() => new E.ServiceUnavailableError(init), 'ServiceUnavailableError'],
  [() => new E.InternalServerError(init), 'InternalServerError'],
  [() => new E.ConnectionError('x', { requestSent: false }), 'ConnectionError'],
  [() => new E.TimeoutError('x'), 'TimeoutError'],
  [() => new E.AbortError('x'), 'AbortError'],
  [() => new E.ResponseValidationError('w', []), 'ResponseValidationError'],
  [() => new E.RequestValidationError('w', []), 'RequestValidationError'],
  [() => new E.ConfigurationError('x'), 'ConfigurationError'],
];
const guards = E as unknown as Record<string, (e: unknown) => boolean>;

describe('error names and guards', () => {
  // Built inside each test: the class field `name` must run under the test that checks it.
  const named = cases.map(([make, name]) => ({ make, name }));
  it.each(named)('$name is named so', ({ make, name }) => {
    expect(make().name).toBe(name);
  });

  // InternalServerError has no guard of its own: isApiError covers it.
  const guarded = named.filter(({ name }) => `is${name}` in guards);
  it.each(guarded)('$name is known by its guard, also from another copy', ({ make, name }) => {
    const guard = guards[`is${name}`] as (e: unknown) => boolean;
    expect(guard(make())).toBe(true);
    // Another copy of the package: a class of the same name, and a subclass of one.
    const Foreign = { [name]: class extends Error {} }[name] as new () => Error;
    class Sub extends Foreign {}
    expect(guard(new Sub())).toBe(true);
    expect(guard(Object.assign(new Error('x'), { name }))).toBe(true);
    expect(guard({ name, message: 'x' })).toBe(false);
    expect(guard(new Error('x'))).toBe(false);
  });

  it('counts subclasses for the parent guard, never the other way round', () => {
    expect(E.isApiError(new E.NotFoundError(init))).toBe(true);
    expect(E.isRemoteBrowserError(new E.TimeoutError('x'))).toBe(true);
    expect(E.isNotFoundError(new E.ApiError(init))).toBe(false);
    expect(E.isConnectionError(new E.TimeoutError('x'))).toBe(false);
  });
});

describe('error messages and fields', () => {
  it('words request and response validation errors', () => {
    const request = new E.RequestValidationError('sessions.create', [
      { path: 'a', message: 'must be x' },
      { path: '', message: 'is odd' },
    ]);
    expect(request.message).toBe('sessions.create: invalid request: a: must be x; (root): is odd');
    expect(request.field).toBe('a');
    expect(new E.RequestValidationError('new BrowserApi', [], 'options').message).toBe(
      'new BrowserApi: invalid options: ',
    );
    expect(new E.RequestValidationError('w', []).field).toBe('');
    const response = new E.ResponseValidationError('w', [
      { path: '', message: 'is not an object' },
      { path: 'b', message: 'x' },
      { path: 'c', message: 'y' },
    ]);
    expect(response.message).toBe(
      'w: the response does not match the documented shape: field "(root)" is not an object (and 2 more)',
    );
    expect(new E.ResponseValidationError('w', []).message).toBe(
      'w: the response does not match the documented shape: field "(root)" invalid',
    );
  });

  it('keeps each class its fields in toJSON, the optional ones only when set', () => {
    expect(new E.ApiError(init).toJSON()).toEqual({
      name: 'ApiError',
      message: 'GET /p → 400: m',
      status: 400,
      method: 'GET',
      path: '/p',
      body: { a: 1 },
    });
    expect(new E.ApiError({ ...init, requestId: 'r1' }).toJSON()).toMatchObject({
      requestId: 'r1',
    });
    expect(new E.BadRequestError({ ...init, fieldErrors: { a: ['x'] } }).toJSON()).toMatchObject({
      fieldErrors: { a: ['x'] },
    });
    expect(new E.BadRequestError(init).toJSON()).not.toHaveProperty('fieldErrors');
    expect(
      new E.PaymentRequiredError({ ...init, required: 6, available: 2 }).toJSON(),
    ).toMatchObject({
      required: 6,
      available: 2,
    });
    expect(
      new E.RateLimitError({
        ...init,
        limitType: 's',
        currentUsage: 5,
        limit: 5,
        retryAfterMs: 9,
      }).toJSON(),
    ).toMatchObject({ limitType: 's', currentUsage: 5, limit: 5, retryAfterMs: 9 });
    expect(
      new E.ServiceUnavailableError({ ...init, reason: 'r', retryAfterMs: 3 }).toJSON(),
    ).toMatchObject({
      reason: 'r',
      retryAfterMs: 3,
    });
    const connection = new E.ConnectionError('c', { requestSent: true, hint: 'h' });
    expect(connection.toJSON()).toEqual({
      name: 'ConnectionError',
      message: 'c',
      requestSent: true,
    });
    expect(connection.hint).toBe('h');
    expect(new E.RequestValidationError('w', [{ path: 'a', message: 'b' }]).toJSON()).toMatchObject(
      {
        field: 'a',
        issues: [{ path: 'a', message: 'b' }],
      },
    );
    expect(new E.TimeoutError('t').toJSON()).toEqual({ name: 'TimeoutError', message: 't' });
    expect(
      new E.ResponseValidationError('w', [{ path: 'a', message: 'b' }]).toJSON(),
    ).toMatchObject({
      field: 'a',
      issues: [{ path: 'a', message: 'b' }],
    });
  });

  it('prints the stack alone without details, else with details and cause, redacted', () => {
    const plain = inspect(new E.TimeoutError('t'));
    expect(plain.startsWith('TimeoutError: t\n')).toBe(true);
    expect(plain).not.toContain('{');
    registerSecret('sekrit-value-99');
    const cause = new Error('inner');
    const error = new E.ApiError({ ...init, body: { echo: 'sekrit-value-99' }, cause });
    const shown = inspect(error);
    expect(shown).toMatch(/^ApiError: GET \/p → 400: m\n/);
    expect(shown).toContain('status: 400');
    expect(shown).toContain('cause: Error: inner');
    expect(shown).not.toContain('sekrit-value-99');
    expect(inspect(new E.TimeoutError('t', { cause }))).toContain('cause: Error: inner');
    // The details follow inspect's own options: depth and colours.
    const nested = new E.ApiError({ ...init, body: { a: { b: 1 } } });
    expect(inspect(nested)).toContain('body: { a: { b: 1 } }');
    expect(inspect(nested, { colors: true })).toContain('status: \x1b[33m400\x1b[39m');
    const stackless = new E.TimeoutError('no stack');
    stackless.stack = undefined;
    expect(inspect(stackless)).toBe('TimeoutError: no stack');
  });
});
