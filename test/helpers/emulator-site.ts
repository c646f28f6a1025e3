/**
 * The e2e setup most files share: the emulator and the loopback site, started once per file,
 * and at the end a wait until no session of the emulator runs (whatever each test checked for
 * its own account, nothing may be left running anywhere), then both closed.
 */
import { afterAll, beforeAll } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import {
  type EmulatorHandle,
  type EmulatorOptions,
  startEmulator,
} from '../../src/emulator/index.js';
import { eventually, startTestSite, type TestSite } from './pages.js';

export interface EmulatorAndSite {
  /** The emulator; available from the file's first `beforeAll` on. */
  readonly emu: EmulatorHandle;
  /** The loopback site the remote browser navigates to. */
  readonly site: TestSite;
  /** A client of a new emulator account, so one test's sessions cannot count against another's. */
  newAccountApi(
    input?: Parameters<EmulatorHandle['admin']['createAccount']>[0],
  ): Promise<BrowserApi>;
}

export function useEmulatorAndSite(options: EmulatorOptions = {}): EmulatorAndSite {
  let emu: EmulatorHandle | undefined;
  let site: TestSite | undefined;
  beforeAll(async () => {
    [emu, site] = await Promise.all([startEmulator(options), startTestSite()]);
  });
  afterAll(async () => {
    try {
      if (emu) {
        const started = emu;
        await eventually(
          async () => (await started.admin.state()).runningSessions === 0,
          20_000,
          'zero running sessions',
        );
      }
    } finally {
      await site?.close();
      await emu?.close();
    }
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useEmulatorAndSite: the ${what} starts in beforeAll`);
    return value;
  };
  return {
    get emu() {
      return started(emu, 'emulator');
    },
    get site() {
      return started(site, 'site');
    },
    async newAccountApi(input = {}) {
      const account = await this.emu.admin.createAccount(input);
      return new BrowserApi({
        baseUrl: this.emu.url,
        token: account.token,
        proxyPassword: account.proxyPassword,
      });
    },
  };
}
