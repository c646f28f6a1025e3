/**
 * The detached watchdog process. It holds an IPC channel to its parent and mirrors what the
 * parent holds (watchdog-mirror.ts); when the channel closes without a clean goodbye (the
 * parent was SIGKILLed, ran out of memory, crashed) it ends what the parent left, then exits.
 * Credentials arrive in the environment, never in argv (visible to `ps`).
 */
import { type WatchdogMessage, watchdogMirror } from './watchdog-mirror.js';

const mirror = watchdogMirror({
  origin: process.env.REMOTE_BROWSER_WATCHDOG_ORIGIN ?? '',
  token: process.env.REMOTE_BROWSER_WATCHDOG_TOKEN ?? '',
  ledger: process.env.REMOTE_BROWSER_WATCHDOG_LEDGER ?? '',
});
delete process.env.REMOTE_BROWSER_WATCHDOG_TOKEN;

process.on('message', (message: WatchdogMessage) => mirror.receive(message));
process.on('disconnect', () => {
  void mirror.parentGone().finally(() => process.exit(0));
});

process.send?.({ ready: true });
