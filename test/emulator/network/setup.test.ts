import { describe, expect, it } from 'vitest';
import { FALLBACK_CONSEQUENCE, prepareNetwork } from '../../../src/emulator/network/setup.js';
import { resolveOptions } from '../../../src/emulator/options.js';
import { RUNTIME_DEFAULT_ISOLATION } from '../../../src/emulator/runtime/sandbox.js';
import { RequestValidationError } from '../../../src/http/index.js';

const request = {
  isolation: 'remote' as const,
  internet: {},
  tls: false as const,
  host: '127.0.0.1',
};
const noSandbox = async () => ({ reason: 'bubblewrap (bwrap) is not installed' });

describe('prepareNetwork', () => {
  it("falls back to 'none' with one warning naming the reason and what is not faithful", async () => {
    const warnings: string[] = [];
    const network = await prepareNetwork(request, (m) => warnings.push(m), {}, noSandbox);
    expect(network.isolation).toBe('none');
    expect(network.sandbox).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('bubblewrap (bwrap) is not installed');
    expect(warnings[0]).toContain(FALLBACK_CONSEQUENCE);
    expect(FALLBACK_CONSEQUENCE).toMatch(/loopback.*files/);
  });

  it('refuses the fallback with CI=true: the suite must not test the shared machine by accident', async () => {
    const warnings: string[] = [];
    await expect(
      prepareNetwork(request, (m) => warnings.push(m), { CI: 'true' }, noSandbox),
    ).rejects.toThrow(/isolation 'remote' is not available: bubblewrap.*CI=true/);
    expect(warnings).toEqual([]);
  });

  it('asks for no sandbox and warns nothing on isolation none', async () => {
    const warnings: string[] = [];
    let probed = false;
    const network = await prepareNetwork(
      { ...request, isolation: 'none' },
      (m) => warnings.push(m),
      { CI: 'true' },
      async () => {
        probed = true;
        return { reason: 'unused' };
      },
    );
    expect([network.isolation, probed, warnings]).toEqual(['none', false, []]);
  });

  it('gives a sandboxed runtime the bwrap found, the internet and the SPKI hash of the exit key', async () => {
    const network = await prepareNetwork(
      { ...request, internet: { 'shop.test': 'http://127.0.0.1:4000' } },
      () => {},
      {},
      async () => ({ bwrap: '/usr/bin/bwrap' }),
    );
    expect(network.isolation).toBe('remote');
    expect(network.sandbox?.bwrap).toBe('/usr/bin/bwrap');
    expect(network.sandbox?.exitSpki).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(network.internet.lookup('shop.test')?.origin).toBe('http://127.0.0.1:4000');
    expect(network.ca).toBeUndefined();
  });

  it('makes a CA and a server certificate for tls: true, naming loopback', async () => {
    const { X509Certificate } = await import('node:crypto');
    const network = await prepareNetwork({ ...request, isolation: 'none', tls: true }, () => {});
    const ca = new X509Certificate(network.ca!);
    const server = new X509Certificate(network.serverTls!.cert);
    expect(ca.ca).toBe(true);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.subjectAltName).toContain('DNS:localhost');
    expect(server.subjectAltName).toContain('IP Address:127.0.0.1');
  });
});

describe("startEmulator's isolation, internet and tls options", () => {
  it.each([
    [{ isolation: 'far' }, 'isolation', /must be 'remote' or 'none'/],
    [{ internet: ['shop.test'] }, 'internet', /must be an object/],
    [{ internet: { 'shop.test': 'nope' } }, 'internet.shop.test', /http:\/\/ or https:\/\/ origin/],
    [{ internet: { 'SHOP.test': 'http://127.0.0.1:1' } }, 'internet.host', /lower-case host name/],
    [{ tls: { cert: 'x' } }, 'tls', /true, false or \{ cert, key \}/],
  ])('refuses %j with a typed error naming %s', (options, field, rule) => {
    const error = (() => {
      try {
        resolveOptions(options as never);
      } catch (caught) {
        return caught;
      }
    })() as RequestValidationError;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(rule);
  });

  it('never echoes a tls key it refuses', () => {
    expect(() => resolveOptions({ tls: { key: 'PRIVATE-KEY-BYTES' } as never })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('PRIVATE-KEY-BYTES') }),
    );
  });

  it("defaults to the runtime's isolation constant, no internet and no TLS", () => {
    const resolved = resolveOptions({});
    expect([resolved.isolation, resolved.internet, resolved.tls]).toEqual([
      RUNTIME_DEFAULT_ISOLATION,
      {},
      false,
    ]);
  });
});
