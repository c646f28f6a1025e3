/** Starting emulators in tests, and raw HTTP calls to them (undici, no client library). */
import { request } from 'undici';
import { type EmulatorOptions, resolveOptions } from '../../../src/emulator/options.js';
import { type EmulatorHandle, startWithParts } from '../../../src/emulator/start.js';
import { type FakeRuntimeControl, fakeParts } from './fake-runtime.js';

export const API = '/api/v2/browser';

export interface FakeEmulator extends EmulatorHandle {
  control: FakeRuntimeControl;
}

/** The real control plane over a fake runtime: no Chromium. */
export async function startFakeEmulator(
  options: EmulatorOptions = {},
  prepare: (control: FakeRuntimeControl) => void = () => {},
): Promise<FakeEmulator> {
  const parts = fakeParts();
  prepare(parts.control);
  const handle = await startWithParts(resolveOptions(options), parts);
  return Object.assign(handle, { control: parts.control });
}

export interface CallResult<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

export interface CallOptions {
  body?: unknown;
  /** Bearer token; `null` sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
  rawBody?: string;
}

/** Calls `${origin}${path}`; `path` under the browser API when it starts with `/` and not `/_`. */
export async function call<T = any>(
  origin: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await request(`${origin}${path}`, {
    method: method as any,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.body.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, body: parsed };
}

/** A bound caller for one emulator and token. */
export function client(origin: string, token: string | null) {
  return <T = any>(method: string, path: string, options: Omit<CallOptions, 'token'> = {}) =>
    call<T>(
      origin,
      method,
      path.startsWith('/_') || path.startsWith('/recording') ? path : `${API}${path}`,
      {
        ...options,
        token,
      },
    );
}
