/**
 * undici, loaded on the first request instead of at import: it costs more to load (~70 ms)
 * than everything else an entry imports, and `import('remote-browser')` must stay cheap for
 * programs that only read a type, an error class or a schema.
 */
import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

export function loadUndici(): Promise<typeof Undici> {
  loading ??= import('undici');
  return loading;
}
