/**
 * parseEntry()'s wording, from a launch entry's schema to the typed validation error: a union
 * that fits no branch, a branch of the right type, every issue in schema order, credentials by
 * their type only, and the rules zod cannot word (issue 18's mutation pass). The schemas are
 * built once per module on first use (issue 14, P6), so every test loads the modules afresh.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

type Schemas = typeof import('../../src/launch/option-schemas.js')['LAUNCH_SCHEMAS'];
type Entry = keyof Schemas;

let schemas: Schemas;
let parseEntry: typeof import('../../src/launch/parse-options.js')['parseEntry'];

beforeEach(async () => {
  vi.resetModules();
  schemas = (await import('../../src/launch/option-schemas.js')).LAUNCH_SCHEMAS;
  parseEntry = (await import('../../src/launch/parse-options.js')).parseEntry;
});

interface Rejection {
  name: string;
  message: string;
  field: string;
  issues: { path: string; message: string }[];
}

const parse = (entry: Entry, input: unknown, relativeTo?: string) =>
  parseEntry(entry, schemas[entry], input, relativeTo ? { relativeTo } : {});

function rejection(entry: Entry, input: unknown, relativeTo?: string): Rejection {
  try {
    parse(entry, input, relativeTo);
  } catch (error) {
    expect((error as Error).name).toBe('RequestValidationError');
    return error as Rejection;
  }
  throw new Error(`${entry} accepted ${JSON.stringify(input)}`);
}

/** The one issue of a rejected input, as `path: message`. */
const issueOf = (entry: Entry, input: unknown, relativeTo?: string) =>
  rejection(entry, input, relativeTo).issues.map((i) => `${i.path}: ${i.message}`);

describe('parseEntry wording', () => {
  it('a union that fits no branch says the rule for the option as a whole', () => {
    expect(issueOf('playwrightLaunch', { profile: 123 })).toEqual([
      'profile: must be a profile name (1-100 characters) or { name, storeCache?, pinIp? } (got 123)',
    ]);
    expect(issueOf('playwrightLaunch', { preflight: 'strictest' })).toEqual([
      'preflight: must be true, false or "strict" (got "strictest")',
    ]);
  });

  it('a union branch of the right type reports its own rule at its own path', () => {
    expect(issueOf('playwrightLaunch', { profile: { name: 'a', pinIp: 'yes' } })).toEqual([
      'profile.pinIp: must be a boolean (got "yes")',
    ]);
  });

  it('the error lists every issue, in schema order, and names the first as its field', () => {
    const error = rejection('playwrightLaunch', { slowMo: -1, waitForSlot: 'no' });
    expect(error.field).toBe('waitForSlot');
    expect(error.message).toBe(
      'playwrightLaunch: invalid options: waitForSlot: must be a boolean (got "no"); slowMo: must be >= 0 (got -1)',
    );
  });

  it('a credential of the wrong type is shown by its type only', () => {
    const error = rejection('playwrightLaunch', { token: 12345678, proxyPassword: ['hunter2'] });
    expect(error.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'token: must be a string (got number)',
      'proxyPassword: must be a string (got object)',
    ]);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('12345678');
  });

  it('the rules zod cannot word, said in full', () => {
    expect(
      issueOf(
        'puppeteerConnect',
        { sessionId: 's', options: { defaultViewport: 'big' } },
        'options',
      ),
    ).toEqual([
      'defaultViewport: must be `null` or `{ width, height }` in CSS pixels (positive integers) (got "big")',
    ]);
    expect(issueOf('defineRemoteConfig', { config: {}, options: { emulator: 'yes' } })).toEqual([
      'options.emulator: must be true, false, \'auto\' or startEmulator() options (got "yes")',
    ]);
  });
});
