import { describe, expect, it } from 'vitest';
import { type EmulatorOptions, resolveOptions } from '../../src/emulator/options.js';
import { startEmulator } from '../../src/emulator/start.js';
import { isRequestValidationError, type RequestValidationError } from '../../src/http/index.js';

function refusal(options: unknown): RequestValidationError {
  try {
    resolveOptions(options as EmulatorOptions);
  } catch (error) {
    expect(isRequestValidationError(error), String(error)).toBe(true);
    return error as RequestValidationError;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

describe('startEmulator options', () => {
  it('refuses an unknown key with a typed error naming it, before starting anything', async () => {
    const error = await startEmulator({ tlz: true } as EmulatorOptions).catch((e: unknown) => e);
    expect(isRequestValidationError(error)).toBe(true);
    expect((error as RequestValidationError).field).toBe('tlz');
    expect((error as Error).message).toMatch(
      /^startEmulator: invalid options: tlz: is not an option/,
    );
  });

  it('refuses unknown keys inside network, defaultLimits and account, naming the path', () => {
    expect(refusal({ network: { rtt: 5 } }).field).toBe('network.rtt');
    expect(refusal({ defaultLimits: { sessions: 2 } }).field).toBe('defaultLimits.sessions');
    expect(refusal({ account: { failurerate: 0.5 } }).field).toBe('account.failurerate');
    expect(refusal({ account: { rateLimits: { submits: 1 } } }).field).toBe(
      'account.rateLimits.submits',
    );
    expect(refusal({ account: { delay: { min: 1, maxMs: 2 } } }).field).toBe('account.delay.min');
    const both = refusal({ colour: 'red', network: { rtt: 1 } });
    expect(both.issues.map((i) => i.path)).toEqual(['colour', 'network.rtt']);
  });

  it('accepts every documented key, functions and presets included', () => {
    const resolved = resolveOptions({
      host: '127.0.0.1',
      port: 0,
      recordingPublicationDelayMs: 1,
      defaultLimits: {
        concurrentSessions: 1,
        profiles: 1,
        maxDurationMinutes: 1,
        idleTimeoutMinutes: 1,
      },
      locations: true,
      logger: () => {},
      retentionMs: 1,
      tokenValidityMs: 1,
      videoUrlLifetimeMs: 1,
      defaultBalance: 1,
      account: {
        delay: { minMs: 1, maxMs: 2 },
        rateLimits: { submit: 1, read: 1, windowMs: 1 },
        answers: () => ({}) as never,
      },
      network: { rttMs: 0 },
      sessionStartMs: 0,
      chromiumPath: '/x',
      ffmpegPath: false,
      workDir: '/tmp',
      actionTimeoutMs: 1,
      recordingFps: 1,
      launchTimeoutMs: 1,
    });
    expect(resolved.host).toBe('127.0.0.1');
    expect(resolveOptions({ account: { delay: 'realistic', rateLimits: false } }).account).toEqual({
      delay: 'realistic',
      rateLimits: false,
    });
  });

  it('refuses a host that is not loopback unless expose is true', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'example.test']) {
      const error = refusal({ host });
      expect(error.field).toBe('host');
      expect(error.message).toContain('expose');
    }
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) {
      expect(resolveOptions({ host }).host).toBe(host);
    }
    expect(resolveOptions({ host: '0.0.0.0', expose: true })).toMatchObject({
      host: '0.0.0.0',
      expose: true,
    });
    expect(refusal({ expose: 'yes' }).field).toBe('expose');
  });

  it('refuses a wrong type or range in any option, naming its path, all at once', () => {
    const error = refusal({
      port: 70_000,
      isolation: 'far',
      network: { rttMs: -1 },
      defaultLimits: { profiles: 1.5 },
      account: { failureRate: 2, delay: 'slow' },
      logger: 'console',
    });
    expect(error.issues.map((i) => i.path).sort()).toEqual([
      'account.delay',
      'account.failureRate',
      'defaultLimits.profiles',
      'isolation',
      'logger',
      'network.rttMs',
      'port',
    ]);
  });

  it('never echoes a tls value, which may hold a private key', () => {
    const error = refusal({ tls: '-----BEGIN PRIVATE KEY-----abc' });
    expect(error.field).toBe('tls');
    expect(error.message).not.toContain('PRIVATE KEY');
  });

  it('refuses an internet site it could not serve, naming the host', () => {
    expect(refusal({ internet: { 'exit.test': 'http://127.0.0.1:1' } }).field).toBe(
      'internet.exit.test',
    );
    expect(resolveOptions({ internet: { 'shop.test': 'http://127.0.0.1:4000' } }).internet).toEqual(
      { 'shop.test': 'http://127.0.0.1:4000' },
    );
  });
});
