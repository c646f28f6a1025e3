/**
 * The request parsers' wording, pinned by the mutation pass (issue 18): every rule names the
 * field, the rule and what it got.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RequestValidationError } from '../../src/http/errors.js';
import { describeIssue, parseRequest, parseWire } from '../../src/http/request-validation.js';

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return [...(error as RequestValidationError).issues];
  }
  throw new Error('did not throw');
}

describe('parseRequest and describeIssue', () => {
  const schema = z.object({
    name: z.string().min(1).max(3),
    count: z.number().int().min(1).max(9),
    ratio: z.number().gt(0).lt(1).optional(),
    kind: z.enum(['a', 'b']),
    nested: z.object({ flag: z.boolean() }).optional(),
  });
  const valid = { name: 'ab', count: 2, kind: 'a' };
  const wire = (input: unknown) => issuesOf(() => parseWire('create', schema, input));

  it('returns the parsed value, and names a non-object by its argument', () => {
    expect(parseRequest('w', schema, valid)).toEqual(valid);
    expect(issuesOf(() => parseRequest('w', schema, 'x'))).toEqual([
      { path: 'params', message: 'must be an object (got "x")' },
    ]);
    expect(wire([1])).toEqual([{ path: 'body', message: 'must be an object (got an array)' }]);
    expect(issuesOf(() => parseRequest('w', schema, null, { argument: 'query' }))).toEqual([
      { path: 'query', message: 'must be an object (got null)' },
    ]);
  });

  it("words every issue kind, with zod's own message as the fallback", () => {
    expect(wire({})).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'count', message: 'is required' },
      { path: 'kind', message: 'is required: one of a, b' },
    ]);
    expect(
      wire({ name: '', count: 0, ratio: 0, kind: 'c', nested: { flag: 'y' } }).map(
        (i) => i.message,
      ),
    ).toEqual([
      'must not be empty',
      'must be >= 1 (got 0)',
      'must be > 0 (got 0)',
      'must be one of a, b (got "c")',
      'must be a boolean (got "y")',
    ]);
    expect(wire({ ...valid, name: 'abcd', count: 10, ratio: 1 }).map((i) => i.message)).toEqual([
      'must be at most 3 characters (got 4)',
      'must be <= 9 (got 10)',
      'must be < 1 (got 1)',
    ]);
    const list = z.object({ tags: z.array(z.string()).min(1).max(2) });
    expect(issuesOf(() => parseWire('w', list, { tags: [] }))).toEqual([
      { path: 'tags', message: 'must have at least 1 item (got 0)' },
    ]);
    expect(issuesOf(() => parseWire('w', list, { tags: ['a', 'b', 'c'] }))).toEqual([
      { path: 'tags', message: 'must have at most 2 items (got 3)' },
    ]);
    expect(wire({ ...valid, count: 1.5 }).map((i) => i.message)).toEqual([
      'must be an integer (got 1.5)',
    ]);
    expect(issuesOf(() => parseWire('w', z.object({ d: z.date() }), { d: 5 }))).toEqual([
      { path: 'd', message: 'must be date (got 5)' },
    ]);
    const custom = z.object({ a: z.string().refine(() => false, 'custom rule') });
    expect(issuesOf(() => parseWire('w', custom, { a: 'x' }))).toEqual([
      { path: 'a', message: 'custom rule' },
    ]);
    expect(issuesOf(() => parseWire('w', z.string(), {}))).toEqual([
      { path: 'body', message: 'must be a string (got an object)' },
    ]);
  });

  it('describes a rejected secret field by its type, never its value', () => {
    const secretSchema = z.object({
      proxy_password: z.string(),
      api_key: z.string(),
      nested: z.object({ token: z.string() }),
    });
    expect(
      issuesOf(() =>
        parseWire('w', secretSchema, {
          proxy_password: 918273,
          api_key: false,
          nested: { token: 4242 },
        }),
      ),
    ).toEqual([
      { path: 'proxy_password', message: 'must be a string (got a number)' },
      { path: 'api_key', message: 'must be a string (got a boolean)' },
      { path: 'nested.token', message: 'must be a string (got a number)' },
    ]);
  });

  it("uses zod's messages unless given a wording, as a function or an option", () => {
    const [plain] = issuesOf(() => parseRequest('w', schema, { ...valid, count: 'x' }));
    expect(plain?.message).toBe('Invalid input: expected number, received string');
    expect(issuesOf(() => parseRequest('w', schema, { ...valid, nested: { flag: 1 } }))).toEqual([
      { path: 'nested.flag', message: 'Invalid input: expected boolean, received number' },
    ]);
    const byFunction = issuesOf(() =>
      parseRequest('w', schema, { ...valid, count: 'x' }, (issue) => `bad ${issue.code}`),
    );
    expect(byFunction).toEqual([{ path: 'count', message: 'bad invalid_type' }]);
    const byOption = issuesOf(() =>
      parseRequest('w', schema, { ...valid, count: 'x' }, { describe: describeIssue }),
    );
    expect(byOption).toEqual([{ path: 'count', message: 'must be a number (got "x")' }]);
  });
});
