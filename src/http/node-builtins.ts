/**
 * Node's built-in modules, taken when a call needs them instead of imported at module load
 * (issue 14, P6). A static `import { x } from 'node:fs'` in an ES module builds that module's
 * whole namespace, which runs every lazy getter Node keeps on it (`fs.promises` and the fs
 * streams, `util.parseArgs`, ...), and `node:crypto` or `node:child_process` load dozens of
 * internal modules: on the bench machine the built-ins were half of what importing the
 * Puppeteer entry cost, for modules most programs use only inside a launch, a download or not
 * at all. `process.getBuiltinModule()` (Node 20.16+) returns the plain module, loading it on
 * its first call only.
 */
import type { TimerOptions } from 'node:timers';

export const nodeFs = () => process.getBuiltinModule('node:fs');
export const nodeFsPromises = () => process.getBuiltinModule('node:fs/promises');
export const nodePath = () => process.getBuiltinModule('node:path');
export const nodeUrl = () => process.getBuiltinModule('node:url');
export const nodeModule = () => process.getBuiltinModule('node:module');
export const nodeOs = () => process.getBuiltinModule('node:os');
export const nodeUtil = () => process.getBuiltinModule('node:util');
export const nodeCrypto = () => process.getBuiltinModule('node:crypto');
export const nodeStream = () => process.getBuiltinModule('node:stream');
export const nodeChildProcess = () => process.getBuiltinModule('node:child_process');
export const nodeDns = () => process.getBuiltinModule('node:dns');
export const nodeHttp = () => process.getBuiltinModule('node:http');
export const nodeHttps = () => process.getBuiltinModule('node:https');
export const nodeEvents = () => process.getBuiltinModule('node:events');

/** `util.inspect.custom`, a registered symbol: the same value without loading `node:util`. */
export const INSPECT_CUSTOM: typeof import('node:util').inspect.custom = Symbol.for(
  'nodejs.util.inspect.custom',
) as typeof import('node:util').inspect.custom;

/** `setTimeout` of `node:timers/promises`. */
export function sleep<T = void>(ms?: number, value?: T, options?: TimerOptions): Promise<T> {
  return process.getBuiltinModule('node:timers/promises').setTimeout(ms, value, options);
}
