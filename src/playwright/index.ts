import { notImplemented } from '../not-implemented.js';

export function launchRemote(): never {
  return notImplemented('remote-browser/playwright launchRemote()');
}
