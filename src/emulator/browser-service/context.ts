/**
 * What the browser service's route files share, built once by `createBrowserService()`. It
 * holds the session lifecycle; the lifecycle takes its own narrower deps and never this, so the
 * two do not import each other.
 */
import type { EmulatorClock } from '../clock.js';
import type { ResolvedOptions } from '../options.js';
import type { CdpProxy, LiveView } from '../runtime/index.js';
import type { SessionLifecycle } from './session-lifecycle.js';
import type { Store } from './store.js';
import type { UrlSigner } from './url-signer.js';

export interface BrowserServiceContext {
  options: ResolvedOptions;
  clock: EmulatorClock;
  store: Store;
  sessions: SessionLifecycle;
  proxy: CdpProxy;
  liveView: LiveView;
  signer: UrlSigner;
  /** Folder for persistent profile dirs and synthetic recordings; removed on close. */
  dataDir: string;
}
