/**
 * Names and places on the client's disk for downloads, which come from outside: the service
 * (a hostile or broken one can rewrite `Browser.downloadWillBegin`) and the web page (its
 * `Content-Disposition` or `download` attribute). A `guid` must look like one Chromium makes; a
 * suggested file name is reduced to a safe base name; the final path stays inside the folder;
 * an existing file is never overwritten, and a file appears in its folder only with all its bytes.
 */
import { nodeCrypto, nodeFs, nodeFsPromises, nodePath } from '../http/node-builtins.js';

/** Chromium's download guids are UUIDs; anything else is refused. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The longest file name most file systems take, in bytes of UTF-8. */
export const MAX_NAME_BYTES = 255;

/** Whether `guid` looks like one Chromium makes (so it is safe as a file name). */
export function isGuid(guid: string): boolean {
  return GUID.test(guid);
}

/**
 * `suggested` reduced to a base name safe on any client: no path separators, no `..`, no NUL
 * or other control characters, no leading dots or trailing dots and spaces (Windows), at most
 * MAX_NAME_BYTES bytes (a long name is shortened keeping its extension). Never empty:
 * `fallback` when nothing is left.
 */
export function safeFileName(suggested: string, fallback = 'download'): string {
  const last = suggested.split(/[/\\]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  let name = last.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_');
  name = name.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if (name === '' || name === '.' || name === '..') name = fallback;
  return shorten(name, MAX_NAME_BYTES);
}

/** `name` cut to at most `max` UTF-8 bytes, keeping its extension when it is short. */
export function shorten(name: string, max: number): string {
  if (Buffer.byteLength(name) <= max) return name;
  const ext = nodePath().extname(name);
  const keep = Buffer.byteLength(ext) <= 32 ? ext : '';
  let stem = name.slice(0, name.length - keep.length);
  while (Buffer.byteLength(stem) + Buffer.byteLength(keep) > max) {
    // Drops whole code points (a surrogate pair counts as one), never half a character.
    stem = Array.from(stem).slice(0, -1).join('');
  }
  return stem + keep;
}

/**
 * Whether `path` is inside `folder` (not the folder itself, not outside it through `..` or an
 * absolute name).
 */
export function isInside(folder: string, path: string): boolean {
  const relative = nodePath().relative(nodePath().resolve(folder), nodePath().resolve(path));
  return relative !== '' && !relative.startsWith('..') && !nodePath().isAbsolute(relative);
}

/** Error codes of a file system where `link()` cannot join the two paths. */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP']);

function taken(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${path} exists: not replaced`), { code: 'EEXIST' });
}

/**
 * Moves the file `from` to `to` so that `to` appears whole or not at all (a program watching the
 * folder never reads it half-written), and never in place of a file there: a hard link is both
 * atomic and exclusive. Across file systems the bytes are first copied to a hidden companion in
 * `to`'s folder and linked from there. On a file system without hard links, a file created at
 * `to` between the check and the rename would be replaced. Rejects with code `EEXIST` when `to`
 * is taken.
 */
export async function moveExclusive(from: string, to: string): Promise<void> {
  const fs = nodeFsPromises();
  if (!(await linkExclusive(from, to))) {
    const companion = nodePath().join(
      nodePath().dirname(to),
      `.${nodeCrypto().randomUUID()}.crdownload`,
    );
    await fs.copyFile(from, companion, nodeFs().constants.COPYFILE_EXCL);
    try {
      if (!(await linkExclusive(companion, to))) {
        if (await fs.stat(to).then(Boolean, () => false)) throw taken(to);
        await fs.rename(companion, to);
      }
    } finally {
      await fs.rm(companion, { force: true });
    }
  }
  await fs.unlink(from);
}

/** Hard-links `to` to `from`: false where the file system cannot join the two; EEXIST as taken(). */
async function linkExclusive(from: string, to: string): Promise<boolean> {
  try {
    await nodeFsPromises().link(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw taken(to);
    if (NO_LINK.has(code)) return false;
    throw error;
  }
}

/**
 * Moves the file `from` into `folder` as `name` (already safe), else `name (1).ext`, … as
 * Chromium picks a name in a folder that has the first; as moveExclusive(), the file appears
 * whole and never replaces one, also when two downloads race for one name. Resolves with its
 * path.
 */
export async function moveToFreeName(from: string, folder: string, name: string): Promise<string> {
  const ext = nodePath().extname(name);
  const stem = name.slice(0, name.length - ext.length);
  await nodeFsPromises().mkdir(folder, { recursive: true });
  for (let n = 0; n < 10_000; n++) {
    const suffix = n === 0 ? '' : ` (${n})`;
    const candidate = nodePath().join(
      folder,
      shorten(stem, MAX_NAME_BYTES - Buffer.byteLength(suffix + ext)) + suffix + ext,
    );
    if (!isInside(folder, candidate)) throw new Error(`${name} is not a name inside ${folder}`);
    try {
      await moveExclusive(from, candidate);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`no free name for ${name} in ${folder}`);
}
