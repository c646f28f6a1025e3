/**
 * Checks of the options both clients share (credentials, URL, timeout, retry, dispatcher),
 * before anything is built: `token: 42` or `timeout: '5s'` is a typed error naming the option
 * and the rule, never a TypeError from deep inside nor a silent "no timeout".
 */
import { isAbortSignal, timeoutProblem } from './call-options.js';
import { RequestValidationError } from './errors.js';

export type Issue = { path: string; message: string };

export function shownOption(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** Collects issues for one options object; `done()` throws them together. */
export class OptionChecks {
  readonly issues: Issue[] = [];

  constructor(private readonly what: string) {}

  add(path: string, message: string): void {
    this.issues.push({ path, message });
  }

  /** Secrets are never echoed: only the type is shown. */
  string(path: string, value: unknown, secret = false): void {
    if (value === undefined || typeof value === 'string') return;
    this.add(path, `must be a string (got ${secret ? typeof value : shownOption(value)})`);
  }

  boolean(path: string, value: unknown): void {
    if (value === undefined || typeof value === 'boolean') return;
    this.add(path, `must be true or false (got ${shownOption(value)})`);
  }

  timeout(path: string, value: unknown): void {
    const problem = timeoutProblem(value);
    if (problem) this.add(path, problem);
  }

  /** A number in a range; `integer` for counts. */
  number(
    path: string,
    value: unknown,
    rule: { min: number; exclusiveMin?: boolean; integer?: boolean; finite?: boolean },
  ): void {
    if (value === undefined) return;
    const ok =
      typeof value === 'number' &&
      !Number.isNaN(value) &&
      (rule.exclusiveMin ? value > rule.min : value >= rule.min) &&
      (!rule.integer || Number.isInteger(value)) &&
      (!rule.finite || Number.isFinite(value));
    if (ok) return;
    const kind = rule.integer ? 'an integer' : 'a number';
    this.add(
      path,
      `must be ${kind} ${rule.exclusiveMin ? '>' : '>='} ${rule.min} (got ${shownOption(value)})`,
    );
  }

  signal(path: string, value: unknown): void {
    if (value === undefined || isAbortSignal(value)) return;
    this.add(path, `must be an AbortSignal (got ${shownOption(value)})`);
  }

  object(path: string, value: unknown): value is Record<string, unknown> | undefined {
    if (value === undefined) return true;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return true;
    this.add(path, `must be an object (got ${shownOption(value)})`);
    return false;
  }

  done(): void {
    if (this.issues.length > 0) {
      throw new RequestValidationError(this.what, this.issues, 'options');
    }
  }
}

/** The options of `new BrowserApi()` and `new AccountApi()` that mean the same in both. */
export function checkCommonOptions(
  checks: OptionChecks,
  options: Record<string, unknown>,
  credential: 'token' | 'apiKey',
): void {
  checks.string(credential, options[credential], true);
  checks.string('baseUrl', options.baseUrl);
  checks.timeout('timeout', options.timeout);
  const retry = options.retry;
  if (checks.object('retry', retry) && retry) {
    checks.number('retry.retries', retry.retries, { min: 0, integer: true, finite: true });
    checks.number('retry.baseDelayMs', retry.baseDelayMs, { min: 0, finite: true });
    checks.number('retry.maxDelayMs', retry.maxDelayMs, { min: 0, finite: true });
    checks.number('retry.maxRetryAfterMs', retry.maxRetryAfterMs, { min: 0 });
  }
  checks.number('maxResponseBytes', options.maxResponseBytes, { min: 1, integer: true });
  const dispatcher = options.dispatcher as { dispatch?: unknown } | undefined;
  if (dispatcher !== undefined && typeof dispatcher?.dispatch !== 'function') {
    checks.add('dispatcher', 'must be an undici Dispatcher (an Agent, Pool or ProxyAgent)');
  }
}

/** The root of an options argument: undefined or a plain object. */
export function optionsRoot(what: string, options: unknown): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
    return options as Record<string, unknown>;
  }
  throw new RequestValidationError(
    what,
    [{ path: 'options', message: `must be an object (got ${shownOption(options)})` }],
    'options',
  );
}
