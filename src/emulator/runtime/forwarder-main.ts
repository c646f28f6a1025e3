/**
 * The forwarder's process entry, built to `dist/sandbox-forwarder.js` (tsup.config.ts) and run
 * by node inside the sandbox: `node sandbox-forwarder.js`, its options in its environment and
 * Chromium's command line on its stdin.
 */
import { forwarderOptionsFromEnv, readCommand, runForwarder } from './forwarder.js';

void runForwarder(forwarderOptionsFromEnv(process.env), readCommand(process.stdin));
