import type { TargetingIssue } from '../browser-api/schemas/configurations.js';
import { RemoteBrowserError } from '../http/errors.js';
import { redact } from '../http/redact.js';

/** A launch or connect step failed. The message names the call; `cause` is the original. */
export class LaunchError extends RemoteBrowserError {
  override name = 'LaunchError';
  /** The session this error concerns, if one was created (it has been deleted unless kept). */
  readonly sessionId: string | undefined;

  constructor(message: string, options: { cause?: unknown; sessionId?: string | undefined } = {}) {
    super(message, { cause: options.cause });
    this.sessionId = options.sessionId;
  }

  protected override details(): Record<string, unknown> {
    return this.sessionId ? { sessionId: this.sessionId } : {};
  }
}

/** A problem `/configurations/validate` reported: the wire issue, its suggestion as text. */
export type PreflightIssue = TargetingIssue;

/** The targeting was rejected by `/configurations/validate` (or a strict location check). Nothing was billed. */
export class PreflightError extends RemoteBrowserError {
  override name = 'PreflightError';
  readonly issues: readonly PreflightIssue[];

  constructor(what: string, issues: PreflightIssue[]) {
    const lines = issues.map(
      (i) =>
        `${i.field}: ${i.message}${i.suggestion ? ` (suggestion: ${i.suggestion})` : ''} [${i.code}]`,
    );
    super(`${what}: preflight failed, no session was created: ${lines.join('; ')}`);
    this.issues = issues;
  }

  protected override details(): Record<string, unknown> {
    return { issues: this.issues };
  }
}

/** The account's profile limit is reached; the message lists the existing profiles. */
export class ProfileLimitError extends RemoteBrowserError {
  override name = 'ProfileLimitError';
  readonly existing: readonly string[];

  constructor(message: string, existing: string[], cause: unknown) {
    super(message, { cause });
    this.existing = existing;
  }
}

/** Anything can be thrown: a `message` that is not a string must not break the cleanup. */
export function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

/**
 * Connect failures carry the cdp_url (Playwright's call log, Puppeteer's `ws` ErrorEvent that
 * prints its target when inspected): replace them with a plain Error whose text is redacted.
 */
export function cleanCause(error: unknown): Error {
  const clean = new Error(redact(messageOf(error)));
  clean.name = error instanceof Error ? error.name : 'ConnectError';
  clean.stack = redact(
    error instanceof Error && error.stack ? error.stack : `${clean.name}: ${clean.message}`,
  );
  return clean;
}
