/**
 * `remote-browser emulator` minus the argument parsing: start, print the env lines to export,
 * run until SIGINT/SIGTERM, then close (no Chromium left behind).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onSignals } from '../http/process-signals.js';
import type { EmulatorOptions } from './options.js';
import { type EmulatorHandle, startEmulator } from './start.js';

export interface ForegroundIo {
  stdout(line: string): void;
}

/** The emulator's CA written to a file of its own, for `NODE_EXTRA_CA_CERTS`; undefined without one. */
export async function writeCaFile(
  handle: EmulatorHandle,
): Promise<{ path: string; remove(): Promise<void> } | undefined> {
  if (!handle.ca) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'remote-browser-emulator-ca-'));
  const path = join(dir, 'ca.pem');
  await writeFile(path, handle.ca);
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The lines a shell evaluates to point the library at this emulator (and trust its CA). */
export function exportLines(handle: EmulatorHandle, caFile?: string): string[] {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  return [
    ...(caFile ? [`export NODE_EXTRA_CA_CERTS=${quote(caFile)}`] : []),
    `export REMOTE_BROWSER_URL=${quote(handle.browserUrl)}`,
    `export REMOTE_BROWSER_TOKEN=${quote(handle.token)}`,
    `export REMOTE_BROWSER_PROXY_PASSWORD=${quote(handle.proxyPassword)}`,
    `export REMOTE_BROWSER_ACCOUNT_URL=${quote(handle.accountUrl)}`,
    `export REMOTE_BROWSER_API_KEY=${quote(handle.apiKey)}`,
  ];
}

/** Says what the emulator models beyond loopback (`--rtt`, `--session-start`), if anything. */
export function modelLine(options: EmulatorOptions): string | undefined {
  const parts: string[] = [];
  const rttMs = options.network?.rttMs ?? 0;
  const startMs = options.sessionStartMs ?? 0;
  if (rttMs > 0) parts.push(`${rttMs} ms round trip on every exchange and connection`);
  if (startMs > 0) parts.push(`${startMs} ms per session start`);
  const flakyMs = options.network?.flaky?.meanIntervalMs;
  if (flakyMs) parts.push(`a connection cut every ${flakyMs} ms on average`);
  return parts.length > 0 ? `# network model: ${parts.join(', ')}` : undefined;
}

/**
 * Resolves once the emulator has closed after a signal (or after `stop` is called: tests).
 * The secrets printed here are the emulator's own throwaway credentials: printing them is the point.
 */
export async function runEmulatorForeground(
  options: EmulatorOptions,
  io: ForegroundIo,
  signals: ReadonlyArray<NodeJS.Signals> = ['SIGINT', 'SIGTERM'],
): Promise<{ handle: EmulatorHandle; closed: Promise<void>; stop(): Promise<void> }> {
  const handle = await startEmulator(options);
  const ca = await writeCaFile(handle).catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  let markClosed!: () => void;
  const closed = new Promise<void>((done) => {
    markClosed = done;
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      stopOnSignal();
      await handle.close();
      await ca?.remove();
      io.stdout('# emulator stopped');
      markClosed();
    })();
    return stopping;
  };
  // Before the first line: whoever reads "Ctrl-C stops the emulator" may press it at once, and
  // Node's default would kill the process with its Chromium and temp dirs. A host handler: the
  // emulator's own shutdown is what follows the signal.
  const stopOnSignal = onSignals(signals, () => void stop());

  const state = await handle.admin.state();
  io.stdout(`# remote-browser emulator ${state.version} on ${handle.url}`);
  if (!state.recordingsAvailable) {
    io.stdout(`# recordings are off: ${state.recordingsOffReason ?? 'ffmpeg not found'}`);
  }
  const model = modelLine(options);
  if (model) io.stdout(model);
  for (const line of exportLines(handle, ca?.path)) io.stdout(line);
  io.stdout('# Ctrl-C stops the emulator and every browser it started');
  return { handle, closed, stop };
}
