export type { CdpChannel, CdpListener } from './cdp-channel.js';
export { cdpChannel } from './cdp-channel.js';
export type { FetchInterceptor, FetchPattern, PausedRequest, RemoteTarget } from './remote-cdp.js';
export { RemoteCdp, remoteCdpFor } from './remote-cdp.js';
