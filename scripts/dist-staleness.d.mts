/**
 * Why dist/ under `root` is stale (missing, without the declarations package.json's exports name
 * when `types` are wanted (the default), or older than an input), or undefined when fresh.
 */
export function distStaleness(root?: string, options?: { types?: boolean }): string | undefined;
