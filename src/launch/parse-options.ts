/**
 * From a launch entry's schema (option-schemas.ts) to the library's typed validation error,
 * before anything is created: the error names each field by the name the caller wrote
 * (`timeout`, `remote.waitForSlot`, `sessionId`) and its rule. Credentials are never echoed.
 */
import type { z } from 'zod';
import { RequestValidationError } from '../http/errors.js';
import { describeIssue, type RequestIssue, shown } from '../http/request-validation.js';

type Issue = { path: string; message: string };

/** Options whose values are secrets: an error shows their type only. */
const SECRETS = new Set(['token', 'proxyPassword']);

/** Rules zod's wording cannot say by itself, by option name. */
const EXPECTED: Record<string, string> = {
  preflight: 'true, false or "strict"',
  profile: `a profile name (1-100 characters) or { name, storeCache?, pinIp? }`,
  defaultViewport: '`null` or `{ width, height }` in CSS pixels (positive integers)',
  headless: "true, false or 'shell'",
  api: 'a BrowserApi client',
  browserType: "a Playwright BrowserType (e.g. the runner's own `playwright.chromium`)",
  targetFilter: 'a function',
  emulator: "true, false, 'auto' or startEmulator() options",
  prewarm: 'false or a whole number >= 0',
  signal: 'an AbortSignal (e.g. AbortSignal.timeout(5000))',
};

export interface ParseEntryOptions {
  /**
   * Paths are reported relative to this argument (`options.timeout` → `timeout`), since that
   * is how the caller wrote them. Default: none.
   */
  relativeTo?: string;
  /** Said after an unknown key, e.g. where such an option belongs instead. */
  unknownKeyHint?: string;
}

/**
 * Parses one entry's input with its schema, or throws a RequestValidationError (kind
 * `options`) listing every issue. `input` that is not an object is an issue of `options`.
 */
export function parseEntry<S extends z.ZodType>(
  what: string,
  schema: S,
  input: unknown,
  wording: ParseEntryOptions = {},
): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) => worded(issue as RequestIssue, [], wording));
  throw new RequestValidationError(what, issues, 'options');
}

function worded(issue: RequestIssue, prefix: PropertyKey[], wording: ParseEntryOptions): Issue[] {
  const path = [...prefix, ...issue.path].map(String);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: named([...path, key], wording),
      message: `is not an option of this call${wording.unknownKeyHint ? ` (${wording.unknownKeyHint})` : ''}`,
    }));
  }
  if (issue.code === 'invalid_union') {
    // One branch got the right type and broke a rule inside it: that rule is the news.
    const inner = issue.errors.find((branch) =>
      branch.every(
        (i) => i.path.length > 0 || (i.code !== 'invalid_type' && i.code !== 'invalid_value'),
      ),
    );
    if (inner) return inner.flatMap((i) => worded(i as RequestIssue, path, wording));
  }
  const field = named(path, wording);
  const key = path[path.length - 1] ?? '';
  return [{ path: field, message: describe(issue, key) }];
}

function named(path: string[], wording: ParseEntryOptions): string {
  const relative = wording.relativeTo && path[0] === wording.relativeTo ? path.slice(1) : path;
  return relative.join('.') || wording.relativeTo || 'options';
}

function describe(issue: RequestIssue, key: string): string {
  const got = 'input' in issue && issue.input !== undefined;
  if (SECRETS.has(key) && issue.code === 'invalid_type') {
    return `must be a string (got ${typeof issue.input})`;
  }
  const expected = EXPECTED[key];
  if (
    expected &&
    got &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'custom')
  ) {
    return `must be ${expected} (got ${shown(issue.input)})`;
  }
  if (issue.code === 'custom') return issue.message;
  return describeIssue(issue);
}
