/** Entries whose issue has not landed yet export functions that throw this. Removed as they land. */
export function notImplemented(what: string): never {
  throw new Error(`remote-browser: ${what} is not implemented yet`);
}
