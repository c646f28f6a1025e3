/**
 * Mounts the account service on the emulator: one service per emulator context, over the
 * control plane's store (accounts created by `POST /_emulator/accounts` carry `apiKey`,
 * `purchased` and `balance`) and its clock, reset with `POST /_emulator/reset`.
 */
import type { EmulatorContext } from '../context.js';
import type { RouteModule } from '../router.js';
import { type AccountService, createAccountService } from './service.js';
import type { AccountDirectory } from './types.js';

const services = new WeakMap<EmulatorContext, AccountService>();

export function accountServiceOf(ctx: EmulatorContext): AccountService {
  let service = services.get(ctx);
  if (!service) {
    const accounts: AccountDirectory = {
      byApiKey: (apiKey) => {
        for (const account of ctx.store.accounts.values()) {
          if (account.apiKey === apiKey) return account;
        }
        return undefined;
      },
      byId: (id) => ctx.store.accounts.get(id),
      list: () => ctx.store.accounts.values(),
    };
    const created = createAccountService({
      clock: ctx.clock,
      accounts,
      options: ctx.options.account,
    });
    ctx.onReset(() => created.reset());
    ctx.onClose(() => created.idle());
    services.set(ctx, created);
    service = created;
  }
  return service;
}

/** The API under `/api/v2/base`. */
export const accountServiceModule = (ctx: EmulatorContext): RouteModule =>
  accountServiceOf(ctx).routes;

/** `/_emulator/events`, `/_emulator/notifications`, `/_emulator/purchases`. */
export const accountAdminModule = (ctx: EmulatorContext): RouteModule =>
  accountServiceOf(ctx).adminRoutes;
