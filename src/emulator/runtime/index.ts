export { createBrowserRuntime } from './browser-runtime.js';
export type { CdpProxyOptions } from './cdp-proxy.js';
export { createCdpProxy } from './cdp-proxy.js';
export { findChromium, findFfmpeg } from './find-executables.js';
export type { LiveView, LiveViewOptions } from './live-view.js';
export { createLiveView } from './live-view.js';
export { removeOnExit } from './process-groups.js';
export type {
  BrowserRuntime,
  CdpProxy,
  CdpTargetResolver,
  DebuggerAddress,
  EndedBrowser,
  LaunchSpec,
  PageActions,
  RecordingFile,
  RunningBrowser,
  RunningSession,
  RuntimeOptions,
  SessionDirectory,
} from './types.js';
export {
  NavigationError,
  PageScriptError,
  PageUnresponsiveError,
  SelectorNotFoundError,
} from './types.js';
