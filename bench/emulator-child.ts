/**
 * An emulator in its own process, for rows that measure the client's memory (P5): the server's
 * buffers must not count as the client's. Prints one JSON line with the handle's fields, then
 * runs until its stdin closes (the parent exits or ends it).
 * Usage: node --import tsx bench/emulator-child.ts '<EmulatorOptions as JSON>'
 */
import { startEmulator } from '../src/emulator/index.js';

const emu = await startEmulator(JSON.parse(process.argv[2] ?? '{}'));
process.stdout.write(
  `${JSON.stringify({ url: emu.url, token: emu.token, proxyPassword: emu.proxyPassword })}\n`,
);
process.stdin.resume();
process.stdin.on('close', () => void emu.close().then(() => process.exit(0)));
