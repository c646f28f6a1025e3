import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PageSchema,
  SessionConnectionSchema,
  SessionCreatedSchema,
  SessionSchema,
  SessionSummarySchema,
} from '../../../src/browser-api/schemas/sessions.js';
import { HttpError } from '../../../src/emulator/server/http-error.js';
import { answer, parseBody, unknownKeys } from '../../../src/emulator/server/wire.js';
import { API, call, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const at = (path: string) => resolve(ROOT, path);

/**
 * Type-checks `checked` (an emulator file that builds answers) against the client's schema file
 * `schemaFile` as `edit` leaves it.
 */
let previous: ts.Program | undefined;
function answerErrors(
  schemaFile: string,
  checked: string,
  edit: (schemaSource: string) => string,
): string[] {
  const config = ts.readConfigFile(at('tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const edited = edit(readFileSync(schemaFile, 'utf8'));
  host.readFile = (file) => (resolve(file) === schemaFile ? edited : readFile(file));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, create) =>
    resolve(file) === schemaFile
      ? ts.createSourceFile(file, edited, language)
      : getSourceFile(file, language, onError, create);
  // Later checks reuse the first's unchanged files (node_modules' types, most of src/).
  const program = ts.createProgram([checked], options, host, previous);
  previous = program;
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(checked))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** `source` with the first `from` after `marker` replaced by `to`. */
const renameAfter = (marker: string, from: string, to: string) => (source: string) => {
  const start = source.indexOf(marker);
  expect(start).toBeGreaterThan(-1);
  return source.slice(0, start) + source.slice(start).replace(from, to);
};

const SESSIONS_SCHEMA = at('src/browser-api/schemas/sessions.ts');
const SESSION_VIEWS = at('src/emulator/browser-service/session-views.ts');
const viewErrors = (edit: (source: string) => string) =>
  answerErrors(SESSIONS_SCHEMA, SESSION_VIEWS, edit);

describe('the emulator answers with the client wire schemas', () => {
  it('fails its type check where it builds an answer when a client schema renames a field', () => {
    // The control: the contract as it is type-checks, so the failure below is the rename's.
    expect(viewErrors((source) => source)).toEqual([]);
    const renamed = renameAfter('export const SessionSummarySchema', 'created_at:', 'started_at:');
    const errors = viewErrors(renamed);
    expect(errors.join('\n')).toMatch(/started_at/);
  }, 60_000);

  it.each([
    [
      'a polled row (the account service builds rows and answers batches)',
      'src/account-api/schemas/queries.ts',
      'src/emulator/account-service/queries.ts',
      renameAfter('export const ResultRowSchema', 'question:', 'prompt:'),
      /prompt/,
    ],
    [
      "a webhook's last delivery (fetch, list, create and rotate answers)",
      'src/account-api/schemas/webhooks.ts',
      'src/emulator/account-service/webhooks.ts',
      renameAfter('export const LastDeliverySchema', 'response_code:', 'http_status:'),
      /http_status/,
    ],
  ])(
    'fails the account service type check when the client renames a field of %s',
    (_what, schema, checked, rename, named) => {
      expect(answerErrors(at(schema), at(checked), (source) => source)).toEqual([]);
      expect(answerErrors(at(schema), at(checked), rename).join('\n')).toMatch(named);
    },
    60_000,
  );

  it('answers a 500 naming the field when a value breaks the schema, instead of sending it', () => {
    const drifted = SessionCreatedSchema.extend({ status: z.literal('starting') });
    const value = { id: 's1', cdp_url: 'ws://127.0.0.1:1/cdp/s1', status: 'running' as const };
    expect(answer(SessionCreatedSchema, value)).toBe(value);
    const error = captured(() => answer(drifted, value as never));
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 500, message: expect.stringContaining('status') });
  });

  it('reads the loose client schemas strictly: a key the client does not name is a drift', () => {
    const value = {
      id: 's1',
      status: 'running' as const,
      created_at: '2026-01-01T00:00:00.000Z',
      config: { country: 'us', exit_ip: '198.51.100.7' },
      debug: true,
    };
    expect(unknownKeys(SessionSummarySchema, value)).toEqual(['config.exit_ip', 'debug']);
    expect(() => answer(SessionSummarySchema, value)).toThrow(/config\.exit_ip.*debug/);
    expect(
      unknownKeys(z.array(PageSchema), [{ id: 'p', title: '', type: 'page', url: '', x: 1 }]),
    ).toEqual(['[0].x']);
  });
});

function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('parseBody', () => {
  const Schema = z.looseObject({ url: z.string().url(), proxy_password: z.string().min(1) });

  it('answers 400 naming each field and rule, per field too, never quoting a secret', () => {
    const error = captured(() => parseBody(Schema, { url: 5, proxy_password: 7 })) as HttpError;
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      'url must be a string (got 5); proxy_password must be a string (got a number)',
    );
    expect(error.fields).toEqual({
      url: ['must be a string (got 5)'],
      proxy_password: ['must be a string (got a number)'],
    });
  });

  it('reads an absent body as {} and a top-level null as omitted', () => {
    const Optional = z.object({ name: z.string().optional() });
    expect(parseBody(Optional, undefined)).toEqual({});
    expect(parseBody(Optional, { name: null })).toEqual({});
    expect(() => parseBody(Optional, [1])).toThrow('The request body must be a JSON object');
  });
});

describe("the emulator's real answers, read strictly by the client's schemas", () => {
  let emu: FakeEmulator;
  beforeAll(async () => {
    emu = await startFakeEmulator();
  });
  afterAll(() => emu.close());

  it('creates, lists, fetches and connects to a session with nothing beyond the contract', async () => {
    const api = (method: string, path: string, body?: unknown) =>
      call(emu.url, method, `${API}${path}`, { token: emu.token, body });
    const created = await api('POST', '/sessions', { proxy_password: emu.proxyPassword });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    const answers: [z.ZodType, unknown][] = [
      [SessionCreatedSchema, created.body.data],
      [z.array(SessionSummarySchema), (await api('GET', '/sessions')).body.data],
      [SessionSchema, (await api('GET', `/sessions/${id}`)).body.data],
      [SessionConnectionSchema, (await api('GET', `/sessions/${id}/connection`)).body.data],
    ];
    for (const [schema, data] of answers) {
      expect(schema.safeParse(data).success).toBe(true);
      expect(unknownKeys(schema, data)).toEqual([]);
    }
    await api('DELETE', `/sessions/${id}`);
  });
});
