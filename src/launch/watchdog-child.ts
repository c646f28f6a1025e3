/**
 * The detached watchdog process (spawned by watchdog.ts). It holds an IPC channel to its parent
 * and mirrors what the parent holds; when the channel closes without a clean goodbye (the parent
 * was SIGKILLed, ran out of memory, crashed) it ends what the parent left, then exits. All of it
 * is runWatchdog() in watchdog-mirror.ts, which loads the client (BrowserApi) only when the parent
 * is gone, so the child starts fast and the parent's state cannot break it.
 */
import { runWatchdog } from './watchdog-mirror.js';

runWatchdog(process);
