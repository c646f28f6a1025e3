/**
 * What the drop-ins (`chromium` from remote-browser/playwright, `puppeteer` from
 * remote-browser/puppeteer) do with a local launch's options, library-agnostic: the `remote`
 * options they add, the one warning for what they ignore, the `args` they understand, and the
 * local directory → saved profile mapping. Frameworks (Crawlee, puppeteer-extra) pass local
 * options on every launch, so an option without a remote meaning is ignored with a warning,
 * never an error, unless the user asks for `strict`.
 */
import { LaunchError } from './errors.js';

/** The `process.emitWarning` code, so users can filter it the Node way. */
export const IGNORED_OPTION_CODE = 'REMOTE_BROWSER_IGNORED_OPTION';

/**
 * The `remote` options only the drop-ins take (the rest are `launchRemote()`'s); checked with
 * each drop-in's schema in option-schemas.ts.
 */
export interface DropInRemoteOptions {
  /**
   * Make every ignored local option an error that names it, as a check that nothing local is
   * silently lost. Default: false (ignored with one warning per process).
   */
  strict?: boolean;
  /**
   * What a local user-data directory means remotely (`launchPersistentContext(dir)`,
   * Puppeteer's `userDataDir`). `'ignore'`: a fresh session without a saved profile (a local
   * directory cannot reach the remote browser). `'profile'`: the saved profile named after the
   * directory's last segment, created on first use, so cookies survive like in the directory.
   * A bare name (no path separator) is always a profile name. Default: `'ignore'`.
   */
  userDataDir?: 'ignore' | 'profile';
}

/** One option the drop-in could not carry over, and why. */
export interface Ignored {
  /** The option's name as the user wrote it (`args: --no-sandbox`, `proxy`, `channel`). */
  option: string;
  why: string;
}

export const WHY = {
  localBinary: 'the service runs its own Chromium; no local binary is started',
  proxy: "the session's own proxy is used; choose its exit with `remote: { country, city, ... }`",
  noProcess:
    'there is no local browser process (use installExitHooks() to end sessions on signals)',
  localFiles: 'the remote browser keeps its own files; save artifacts through the client APIs',
  unknown: 'not an option of the local launch this drop-in replaces',
} as const;

/** The drop-in's own `strict` and `userDataDir`, split from the options `launchRemote()` takes. */
export function splitRemote<R>(raw: unknown): { dropIn: DropInRemoteOptions; remote: R } {
  const { strict, userDataDir, ...remote } = (raw ?? {}) as DropInRemoteOptions;
  return {
    dropIn: {
      ...(strict !== undefined ? { strict } : {}),
      ...(userDataDir !== undefined ? { userDataDir } : {}),
    },
    remote: remote as R,
  };
}

/**
 * Sorts a local launch's keys but the `mapped` ones: a key of `ignoredWhy` is ignored for its
 * reason unless it holds its local default; any other key set goes to `other` when given (a
 * persistent context's context options), else is ignored as unknown.
 */
export function sortLocalKeys(
  options: Record<string, unknown>,
  mapped: ReadonlySet<string>,
  ignoredWhy: Readonly<Record<string, string>>,
  other?: (key: string, value: unknown) => void,
): Ignored[] {
  const ignored: Ignored[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (mapped.has(key) || value === undefined) continue;
    const why = ignoredWhy[key];
    if (why !== undefined) {
      if (!isLocalDefault(key, value)) ignored.push({ option: key, why });
    } else if (other) other(key, value);
    else ignored.push({ option: key, why: WHY.unknown });
  }
  return ignored;
}

const warned = new Set<string>();

/**
 * Each ignored option is named once per process: a framework that launches a hundred browsers
 * with the same options gets one warning. `strict` throws instead, naming all of them.
 */
export function settleIgnored(what: string, ignored: readonly Ignored[], strict: boolean): void {
  if (!ignored.length) return;
  if (strict) {
    throw new LaunchError(
      `${what}: ${ignored.map((i) => `\`${i.option}\` (${i.why})`).join('; ')} cannot apply to a remote browser; remove ${ignored.length > 1 ? 'them' : 'it'}, or drop \`remote.strict\` to ignore ${ignored.length > 1 ? 'them' : 'it'} with a warning`,
    );
  }
  const fresh = ignored.filter((i) => !warned.has(i.option));
  if (!fresh.length) return;
  for (const i of fresh) warned.add(i.option);
  process.emitWarning(
    `${what}: ignored ${fresh.map((i) => `\`${i.option}\` (${i.why})`).join('; ')}. Set \`remote: { strict: true }\` to make this an error.`,
    { type: 'RemoteBrowserWarning', code: IGNORED_OPTION_CODE },
  );
}

/** Forget what was warned (tests). */
export function resetIgnoredWarnings(): void {
  warned.clear();
}

/** What a Chromium command line says that has a remote equivalent. */
export interface MappedArgs {
  windowSize?: { width: number; height: number };
  lang?: string;
  userAgent?: string;
  ignored: Ignored[];
}

/**
 * `--window-size=W,H` → the page viewport, `--lang=xx` → locale emulation, `--user-agent=...` →
 * user-agent emulation; `--proxy-server` gets the proxy warning; every other switch is ignored
 * and named by its switch only (a value can hold a credential).
 */
export function mapArgs(args: unknown): MappedArgs {
  const out: MappedArgs = { ignored: [] };
  if (!Array.isArray(args)) return out;
  for (const arg of args) {
    if (typeof arg !== 'string') continue;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = eq === -1 ? '' : arg.slice(eq + 1);
    if (name === '--window-size') {
      const [w, h] = value.split(/[,x]/).map(Number);
      if (w && h && w > 0 && h > 0) {
        out.windowSize = { width: Math.round(w), height: Math.round(h) };
        continue;
      }
    } else if (name === '--lang' && value) {
      out.lang = value;
      continue;
    } else if (name === '--user-agent' && value) {
      out.userAgent = value.replace(/^"(.*)"$/, '$1');
      continue;
    }
    out.ignored.push({
      option: `args: ${name}`,
      why: name === '--proxy-server' ? WHY.proxy : WHY.localBinary,
    });
  }
  return out;
}

export type UserDataDirMapping =
  | { kind: 'none' }
  | { kind: 'profile'; name: string }
  | { kind: 'ignored'; ignored: Ignored };

/**
 * A user-data directory: empty or absent is a fresh profile (as locally, a temporary one); a bare
 * name is a saved profile's name; a path is a profile only when `mapping` is `'profile'`.
 */
export function mapUserDataDir(
  dir: unknown,
  mapping: DropInRemoteOptions['userDataDir'],
): UserDataDirMapping {
  if (dir === undefined || dir === null || dir === '') return { kind: 'none' };
  const text = String(dir);
  const isPath = /[/\\]/.test(text) || text === '.' || text === '..';
  if (!isPath) return { kind: 'profile', name: text };
  if (mapping === 'profile') {
    const name = (
      text
        .replace(/[/\\]+$/, '')
        .split(/[/\\]/)
        .pop() ?? ''
    ).trim();
    if (name && name !== '.' && name !== '..') return { kind: 'profile', name };
  }
  return {
    kind: 'ignored',
    ignored: {
      option: 'userDataDir',
      why: "a local directory cannot reach the remote browser, so the session starts with a fresh profile; `remote: { userDataDir: 'profile' }` uses a saved profile named after the directory",
    },
  };
}

/** Values equal to the local launch's own default change nothing: no warning for them. */
export function isLocalDefault(key: string, value: unknown): boolean {
  if (value === undefined) return true;
  const defaults: Record<string, unknown> = {
    handleSIGINT: true,
    handleSIGTERM: true,
    handleSIGHUP: true,
    chromiumSandbox: false,
    devtools: false,
    ignoreDefaultArgs: false,
    pipe: false,
    dumpio: false,
    waitForInitialPage: true,
    enableExtensions: false,
  };
  if (Array.isArray(value)) return !value.length;
  if (key in defaults) return defaults[key] === value;
  if (key === 'env') return value === process.env;
  return false;
}
