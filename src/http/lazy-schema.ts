/**
 * zod, and the schemas built with it, made on first use instead of at import: loading zod and
 * building every schema costs more than the rest of an entry (issue 14, P6), and most programs
 * that import `remote-browser` validate nothing until their first request. A schema exported
 * from an entry is a stand-in that builds the real one on its first property access, so
 * `SessionSchema.parse(x)` works as before.
 */
import type * as Zod from 'zod';
import { nodeModule } from './node-builtins.js';

let loaded: typeof Zod.z | undefined;

/** The `z` namespace, loaded synchronously on first call (schemas are used synchronously). */
export function zod(): typeof Zod.z {
  loaded ??= (nodeModule().createRequire(import.meta.url)('zod') as typeof Zod).z;
  return loaded;
}

/** A value built by `build()` on its first use; every access goes to the built value. */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const target = (): T => {
    built ??= build();
    return built;
  };
  return new Proxy({} as T, {
    get: (_, key) => {
      const real = target();
      return Reflect.get(real, key, real);
    },
    has: (_, key) => Reflect.has(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
    // Spreading (`{ ...targeting }`) and Object.keys see the real properties; reported
    // configurable, as a proxy must for properties its empty stand-in does not have.
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
