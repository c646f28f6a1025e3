/**
 * The account service's view of the control plane's accounts: accounts created by
 * `POST /_emulator/accounts` carry `apiKey`, `purchased` and `balance`.
 */

import type { AccountDirectory } from '../account-service/types.js';
import type { Store } from './store.js';

export function accountDirectory(store: Store): AccountDirectory {
  return {
    byApiKey: (apiKey) => [...store.accounts.values()].find((a) => a.apiKey === apiKey),
    byId: (id) => store.accounts.get(id),
    list: () => store.accounts.values(),
  };
}
