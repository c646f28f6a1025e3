/**
 * The forwarder's process entry, built to `dist/sandbox-forwarder.js` (tsup.config.ts) and run
 * by node inside the sandbox: `node sandbox-forwarder.js`, everything else in its environment.
 */
import { commandFromEnv, forwarderOptionsFromEnv, runForwarder } from './forwarder.js';

void runForwarder(forwarderOptionsFromEnv(process.env), commandFromEnv(process.env));
