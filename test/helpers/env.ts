/** Environment variables in tests: set for a while, then put back exactly as they were. */

/** Sets (or, with `undefined`, deletes) each variable and returns a function that restores them. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.keys(vars).map((name) => [name, process.env[name]] as const);
  for (const [name, value] of Object.entries(vars)) assign(name, value);
  return () => {
    for (const [name, value] of saved) assign(name, value);
  };
}

/** Runs `fn` with the variables set, restoring them afterwards whether it throws or not. */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  fn: () => T | Promise<T>,
): Promise<T> {
  const restore = setEnv(vars);
  try {
    return await fn();
  } finally {
    restore();
  }
}

// `process.env.X = undefined` stores the string "undefined": an unset variable must be deleted.
function assign(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
