/** Why dist/ under `root` is stale (missing, or older than an input), or undefined when fresh. */
export function distStaleness(root?: string): string | undefined;
