/**
 * The account service alone on the emulator's server (its body parsing and one error path),
 * over a plain map of accounts and a real EmulatorClock: the service's routes tested without
 * the rest of the emulator.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { AccountServiceOptions } from '../../../src/emulator/account-service/account-options.js';
import { createAccountService } from '../../../src/emulator/account-service/service.js';
import type { AccountRecord } from '../../../src/emulator/account-service/types.js';
import { EmulatorClock } from '../../../src/emulator/clock.js';
import { FaultRegistry } from '../../../src/emulator/server/faults.js';
import { Router } from '../../../src/emulator/server/router.js';
import { createEmulatorServer } from '../../../src/emulator/server/server.js';

export interface Harness {
  origin: string;
  api: string;
  clock: EmulatorClock;
  accounts: Map<string, AccountRecord>;
  service: ReturnType<typeof createAccountService>;
  addAccount(input?: Partial<AccountRecord>): AccountRecord;
  call(
    method: string,
    path: string,
    options?: {
      key?: string | null;
      body?: unknown;
      raw?: string;
      headers?: Record<string, string>;
    },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startHarness(options: AccountServiceOptions = {}): Promise<Harness> {
  const clock = new EmulatorClock();
  const accounts = new Map<string, AccountRecord>();
  const service = createAccountService({
    clock,
    accounts: {
      byApiKey: (key) => [...accounts.values()].find((a) => a.apiKey === key),
      byId: (id) => accounts.get(id),
      list: () => accounts.values(),
    },
    options: { seed: 1, ...options },
  });
  const router = new Router();
  router.mount(service.routes);
  router.mount(service.adminRoutes);
  // The emulator's own server (body parsing, error wording, refusals) with only this service.
  let origin = '';
  const server = createEmulatorServer(
    {
      faults: new FaultRegistry(),
      log: () => {},
      origin: () => origin,
      boundHost: '127.0.0.1',
      handleHttp: () => false,
      handleUpgrade: () => false,
    },
    router,
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const harness: Harness = {
    origin,
    api: `${origin}/api/v2/base`,
    clock,
    accounts,
    service,
    addAccount(input = {}) {
      const account = {
        id: randomUUID(),
        apiKey: `ak_${randomUUID().replaceAll('-', '')}`,
        purchased: true,
        balance: 100,
        ...input,
      };
      accounts.set(account.id, account);
      return account;
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `x-api-key ${opts.key}`;
      let payload = opts.raw;
      if (opts.body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(opts.body);
      }
      const url = path.startsWith('/_emulator')
        ? `${origin}${path}`
        : `${origin}/api/v2/base${path}`;
      const response = await fetch(url, { method, headers, body: payload });
      const text = await response.text();
      return {
        status: response.status,
        body: text ? JSON.parse(text) : undefined,
        headers: response.headers,
      };
    },
    async close() {
      service.reset();
      clock.cancelAll();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return harness;
}
