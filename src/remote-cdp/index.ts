export type { CdpChannel, CdpListener } from './cdp-channel.js';
export { cdpChannel } from './cdp-channel.js';
export { DEFAULT_EXPOSE_NETWORK, exposeNetworkProblem } from './host-patterns.js';
export type { FetchInterceptor, FetchPattern, PausedRequest, RemoteTarget } from './remote-cdp.js';
export { RemoteCdp } from './remote-cdp.js';
export type { RemoteFeatureOptions } from './remote-features.js';
export { remoteCdpFor, startRemoteFeatures } from './remote-features.js';
