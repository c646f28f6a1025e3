/**
 * The account service's view of the control plane's accounts: accounts created by
 * `POST /_emulator/accounts` carry `apiKey`, `purchased` and `balance`.
 */

import type { AccountDirectory } from '../account-service/types.js';
import type { Store } from './store.js';

export function accountDirectory(store: Store): AccountDirectory {
  return {
    byApiKey: (apiKey) => {
      for (const account of store.accounts.values()) {
        if (account.apiKey === apiKey) return account;
      }
      return undefined;
    },
    byId: (id) => store.accounts.get(id),
    list: () => store.accounts.values(),
  };
}
