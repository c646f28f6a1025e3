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

/**
 * Secrets of at least this length are removed wherever they appear. Shorter ones (a 4-character
 * proxy password) are removed only where they stand whole: not next to a letter, digit, `_`,
 * `-`, `~`, `+`, `/` or `%`, nor a `.` that joins them to a longer word (so `pw1` goes from
 * `password pw1.` and `"proxy_password":"pw1"`, but `upw1`, `pw12` and `a.pw1` stay).
 */
const WHOLE_ONLY_BELOW = 6;

/**
 * Longest message an error keeps: 8 KB (8192 characters). Longer ones (a hostile service's
 * `{"error":"…"}`) are cut before they are redacted, so redaction time stays bounded.
 */
export const MAX_MESSAGE_LENGTH = 8 * 1024;
/** What is read past the cut before redacting, so a secret that straddles it is still whole. */
const CUT_SLACK = 1024;

const secrets = new Set<string>();
const shortSecrets = new Set<string>();
/** Every registered secret and its escaped forms, longest first; rebuilt on change. */
let ordered: string[] | undefined;
let shortPattern: RegExp | null | undefined;

/** `\` and one quote escaped, as `util.inspect` writes a string it quotes with `quote`. */
function inspectEscaped(value: string, quote: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`);
}

/**
 * A secret as it can be printed: raw, URL-encoded, inside a JSON string (once or nested twice)
 * and inside a string `util.inspect` quoted with `'`, `"` or a backtick.
 */
function printedForms(value: string): Set<string> {
  const forms = new Set([value, encodeURIComponent(value)]);
  for (let round = 0; round < 2; round++) {
    for (const form of [...forms]) {
      forms.add(JSON.stringify(form).slice(1, -1));
      forms.add(inspectEscaped(form, "'"));
      forms.add(inspectEscaped(form, '"'));
      forms.add(inspectEscaped(form, '`'));
    }
  }
  return forms;
}

/**
 * Registers a value that must never be printed, with its escaped forms (see `printedForms`).
 * Ignores empty values; values under six characters are removed only where they stand whole.
 */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== 'string' || value === '') return;
  const into = value.length < WHOLE_ONLY_BELOW ? shortSecrets : secrets;
  for (const form of printedForms(value)) into.add(form);
  ordered = undefined;
  shortPattern = undefined;
}

/** Forgets every registered secret (tests). */
export function clearRegisteredSecrets(): void {
  secrets.clear();
  shortSecrets.clear();
  ordered = undefined;
  shortPattern = undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function shortSecretPattern(): RegExp | null {
  if (shortPattern !== undefined) return shortPattern;
  const alternatives = [...shortSecrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
  shortPattern =
    alternatives.length === 0
      ? null
      : new RegExp(
          `(?<![\\p{L}\\p{N}_~+/%.-])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}_~+/%-]|\\.[\\p{L}\\p{N}])`,
          'gu',
        );
  return shortPattern;
}

const TOKEN_PARAMS =
  'token|access_token|accesstoken|auth|auth_token|key|api_key|apikey|secret|client_secret|password|passwd|pwd|sig|signature|x-amz-signature|x-goog-signature|jwt|session_token|proxy_password';

// Every pattern below runs in time linear in its input: no quantified part is followed by
// something that can fail after it consumed an unbounded run (which made `a.a.a…` quadratic).

// `?token=abc&x=1` → `?token=[REDACTED]&x=1`; stops at the next separator or quote.
// Idempotent: an already redacted value is left alone.
const QUERY_PARAM = new RegExp(
  `([?&;](?:${TOKEN_PARAMS})=)(?!\\[REDACTED\\])[^&#\\s"'<>;,)\\]]+`,
  'gi',
);
// `Authorization: Bearer abc`, `"authorization":"x-api-key abc"`, bare `Bearer abc`.
const AUTH_VALUE = /\b(Bearer|x-api-key|Basic)(\s{1,16})[A-Za-z0-9._~+/=:-]+/gi;
// `ws://user:pass@host` and `https://token@host`: a scheme of at most 32 characters, and
// user-info of at most 1024 (longer is no URL a client builds).
const URL_USERINFO = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/)[^/\s@"'<>]{1,1024}@/gi;
// JSON-ish fields whose values are secrets whatever they hold: to the closing quote (an escaped
// `\"` inside is part of the value), or the end.
const SECRET_FIELDS =
  /("(?:token|access_token|api_key|apiKey|apikey|secret|proxy_password|proxyPassword|password|authorization|Authorization)"\s{0,16}:\s{0,16}")(?:[^"\\]|\\[\s\S])*/g;

/** Returns `text` with every registered secret and every credential-shaped value replaced. */
export function redact(text: string): string {
  let out = text;
  // Longest first, so a secret that contains another is removed whole.
  ordered ??= [...secrets].sort((a, b) => b.length - a.length);
  for (const secret of ordered) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  const short = shortSecretPattern();
  if (short) out = out.replace(short, REDACTED);
  return out
    .replace(QUERY_PARAM, `$1${REDACTED}`)
    .replace(AUTH_VALUE, `$1$2${REDACTED}`)
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(SECRET_FIELDS, `$1${REDACTED}`);
}

/**
 * `text` cut to `MAX_MESSAGE_LENGTH` (saying how much was cut), then redacted: what every
 * error message goes through. Redaction runs on the cut text plus 1 KB, so a secret that
 * straddles the cut is still removed whole.
 */
export function redactMessage(text: string): string {
  if (text.length <= MAX_MESSAGE_LENGTH) return redact(text);
  const head = redact(text.slice(0, MAX_MESSAGE_LENGTH + CUT_SLACK)).slice(0, MAX_MESSAGE_LENGTH);
  return `${head}… (${text.length - MAX_MESSAGE_LENGTH} more characters cut)`;
}

/** `text` cut (not redacted) to what `redactMessage` would read of it. */
export function cutForMessage(text: string): string {
  return text.length <= MAX_MESSAGE_LENGTH + CUT_SLACK
    ? text
    : text.slice(0, MAX_MESSAGE_LENGTH + CUT_SLACK);
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
