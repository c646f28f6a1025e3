/** Everything a route module needs, built once by `startEmulator()`. */
import type { SessionLifecycle } from './browser-service/session-lifecycle.js';
import type { EmulatorClock } from './clock.js';
import type { FaultRegistry } from './faults.js';
import type { ResolvedOptions } from './options.js';
import type { BrowserRuntime, CdpProxy } from './runtime/index.js';
import type { Store } from './store.js';
import type { UrlSigner } from './url-signer.js';

export interface LiveView {
  handleHttp(
    req: import('node:http').IncomingMessage,
    res: import('node:http').ServerResponse,
  ): boolean;
  url(origin: string, sessionId: string): string;
}

export interface EmulatorContext {
  options: ResolvedOptions;
  clock: EmulatorClock;
  store: Store;
  faults: FaultRegistry;
  /** Logs one line, redacted. */
  log(level: 'info' | 'warn' | 'error', message: string): void;
  runtime: BrowserRuntime;
  proxy: CdpProxy;
  liveView: LiveView;
  sessions: SessionLifecycle;
  signer: UrlSigner;
  /** Folder for persistent profile dirs; removed on close. */
  dataDir: string;
  /** The account `startEmulator()` hands out; kept across `POST /_emulator/reset`. */
  defaultAccountId: string;
  /** `http://host:port` once listening. */
  origin(): string;
  /** Runs on `POST /_emulator/reset`, after sessions ended and the store was cleared. */
  onReset(listener: () => void | Promise<void>): void;
  /** Runs on `close()`, after sessions ended and before the server stops. */
  onClose(listener: () => void | Promise<void>): void;
}
