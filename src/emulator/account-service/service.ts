/**
 * The emulated account service: route modules to mount on the emulator's router (the API under
 * `/api/v2/base`, admin routes under `/_emulator`), over the control plane's accounts and clock.
 */
import { accountWording } from '../server/http-error.js';
import type { RouteModule } from '../server/router.js';
import { type AccountServiceOptions, resolveAccountOptions } from './account-options.js';
import { registerAdminActionRoutes } from './admin-actions.js';
import type { AccountServiceContext } from './context.js';
import { Events } from './events.js';
import { registerNotificationRoutes } from './notifications.js';
import { registerQueryRoutes } from './queries.js';
import { hash32, seededRandom } from './random.js';
import { AccountRateLimits } from './rate-limits.js';
import { AccountStates } from './state.js';
import type { AccountClock, AccountDirectory } from './types.js';
import { registerWebhookRoutes } from './webhooks.js';

export const ACCOUNT_API_PREFIX = '/api/v2/base';

export interface AccountServiceDeps {
  clock: AccountClock;
  accounts: AccountDirectory;
  options?: AccountServiceOptions | undefined;
}

export interface AccountService {
  /** The API, mounted under `/api/v2/base`. */
  readonly routes: RouteModule;
  /** Admin routes (events, notifications, purchases), mounted under `/_emulator`. */
  readonly adminRoutes: RouteModule;
  /** Resolves when every webhook delivery started so far has finished. */
  idle(): Promise<void>;
  /** Forgets batches, webhooks, notifications and rate windows (the emulator's reset). */
  reset(): void;
}

/** The route files of the API, one per resource of the spec, mounted under `/api/v2/base`. */
const API_ROUTES = [registerQueryRoutes, registerWebhookRoutes, registerNotificationRoutes];

export function createAccountService(deps: AccountServiceDeps): AccountService {
  const options = resolveAccountOptions(deps.options);
  const states = new AccountStates();
  const events = new Events(states, deps.clock, options);
  const seed = typeof options.seed === 'number' ? options.seed : hash32(options.seed);
  let random = seededRandom(seed);
  const ctx: AccountServiceContext = {
    options,
    clock: deps.clock,
    accounts: deps.accounts,
    states,
    limits: new AccountRateLimits(options.rateLimits, () => deps.clock.now()),
    events,
    random: () => random(),
  };
  return {
    routes: {
      prefix: ACCOUNT_API_PREFIX,
      // Every 400 of this service is per field (`{field: [messages]}`), bad JSON included.
      errorWording: accountWording,
      register(routes) {
        for (const register of API_ROUTES) register(routes, ctx);
      },
    },
    adminRoutes: {
      prefix: '/_emulator',
      register: (routes) => registerAdminActionRoutes(routes, ctx),
    },
    idle: () => events.idle(),
    reset() {
      states.reset();
      ctx.limits.reset();
      random = seededRandom(seed);
    },
  };
}
