export type {
  AccountView,
  AdminClient,
  CreatedAccount,
  EmulatorState,
  NewAccountInput,
} from './admin-client.js';
export type {
  AccountLimits,
  EmulatorLogger,
  EmulatorOptions,
  NetworkOptions,
} from './options.js';
export type { FfmpegLookup } from './runtime/find-executables.js';
export { ChromiumNotFoundError, findChromium, findFfmpeg } from './runtime/find-executables.js';
export type { FaultSpec } from './server/faults.js';
export type { EmulatorHandle } from './start.js';
export { startEmulator } from './start.js';
