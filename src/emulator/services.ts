/**
 * The services mounted on the emulator's one origin, each a route module under its own prefix.
 * A new service is one more entry here.
 */
import { accountAdminModule, accountServiceModule } from './account-service/mount.js';
import { browserServiceModule } from './browser-service/index.js';
import { recordingFilesModule } from './browser-service/recording-files.js';
import type { EmulatorContext } from './context.js';
import type { RouteModule } from './router.js';

export const SERVICE_MODULES: ReadonlyArray<(ctx: EmulatorContext) => RouteModule> = [
  browserServiceModule,
  recordingFilesModule,
  accountServiceModule,
  accountAdminModule,
];
