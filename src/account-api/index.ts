import { notImplemented } from '../not-implemented.js';

export class AccountApi {
  constructor() {
    notImplemented('remote-browser/account AccountApi');
  }
}
