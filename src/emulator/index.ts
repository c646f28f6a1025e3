import { notImplemented } from '../not-implemented.js';

export function startEmulator(): never {
  return notImplemented('remote-browser/emulator startEmulator()');
}
