/**
 * One redaction pass for every string that can leave the process: error messages, log lines,
 * CLI output, report attachments. Two kinds of secrets are removed:
 * - values registered with `registerSecret()` (tokens, API keys, proxy passwords, webhook
 *   secrets: the config resolvers register them as soon as they are known);
 * - anything shaped like a credential even when nobody registered it: token-like query
 *   parameters (`?token=`, `access_token`, `sig`, ...), `Authorization` values (`Bearer x`,
 *   `x-api-key x`) and URL user-info (`ws://user:pass@host`).
 */

export const REDACTED = '[REDACTED]';

/** Shorter values are not registered: redacting them would shred ordinary text. */
const MIN_SECRET_LENGTH = 6;

const secrets = new Set<string>();

/** Registers a value that must never be printed. Ignores empty and very short values. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
  secrets.add(value);
  const encoded = encodeURIComponent(value);
  if (encoded !== value) secrets.add(encoded);
}

/** Forgets every registered secret (tests). */
export function clearRegisteredSecrets(): void {
  secrets.clear();
}

const TOKEN_PARAMS =
  'token|access_token|accesstoken|auth|auth_token|key|api_key|apikey|secret|client_secret|password|passwd|pwd|sig|signature|x-amz-signature|x-goog-signature|jwt|session_token|proxy_password';

// `?token=abc&x=1` → `?token=[REDACTED]&x=1`; stops at the next separator or quote.
// Idempotent: an already redacted value is left alone.
const QUERY_PARAM = new RegExp(
  `([?&;](?:${TOKEN_PARAMS})=)(?!\\[REDACTED\\])[^&#\\s"'<>;,)\\]]+`,
  'gi',
);
// `Authorization: Bearer abc`, `"authorization":"x-api-key abc"`, bare `Bearer abc`.
const AUTH_VALUE = /\b(Bearer|x-api-key|Basic)(\s+)[A-Za-z0-9._~+/=:-]+/gi;
// `ws://user:pass@host` and `https://token@host`.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@"'<>]+@/gi;
// JSON-ish fields whose values are secrets whatever they hold.
const SECRET_FIELDS =
  /("(?:token|access_token|api_key|apiKey|apikey|secret|proxy_password|proxyPassword|password|authorization|Authorization)"\s*:\s*")[^"]*"/g;

/** Returns `text` with every registered secret and every credential-shaped value replaced. */
export function redact(text: string): string {
  let out = text;
  // Longest first, so a secret that contains another is removed whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out
    .replace(QUERY_PARAM, `$1${REDACTED}`)
    .replace(AUTH_VALUE, `$1$2${REDACTED}`)
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(SECRET_FIELDS, `$1${REDACTED}"`);
}

/** Redacts any value for printing: strings directly, everything else through JSON. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  try {
    return JSON.parse(redact(JSON.stringify(value)));
  } catch {
    return REDACTED;
  }
}
