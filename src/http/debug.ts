/**
 * Debug logging, off by default, on with `DEBUG=remote-browser:*` (or a namespace such as
 * `remote-browser:http`; comma-separated, `-name` excludes). Every line is redacted.
 * The environment is read at each call, so it can be switched on in a running process.
 */
import { redact } from './redact.js';

export type DebugSink = (line: string) => void;

let sink: DebugSink = (line) => process.stderr.write(`${line}\n`);

/** Replaces where debug lines go (tests, or a host's own logger). Returns the previous sink. */
export function setDebugSink(next: DebugSink): DebugSink {
  const previous = sink;
  sink = next;
  return previous;
}

function matches(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
  return re.test(name);
}

export function isDebugEnabled(
  namespace: string,
  env: string | undefined = process.env.DEBUG,
): boolean {
  if (!env) return false;
  const name = `remote-browser:${namespace}`;
  let enabled = false;
  for (const raw of env.split(/[\s,]+/)) {
    if (!raw) continue;
    if (raw.startsWith('-')) {
      if (matches(raw.slice(1), name)) return false;
    } else if (matches(raw, name)) {
      enabled = true;
    }
  }
  return enabled;
}

export type Debug = (message: string) => void;

export function createDebug(namespace: string): Debug {
  return (message) => {
    if (!isDebugEnabled(namespace)) return;
    sink(redact(`remote-browser:${namespace} ${message}`));
  };
}
