/**
 * The emulator's certificates (tls.ts) as TLS clients see them: a real HTTPS server with a
 * certificate the emulator's CA issued is trusted by a client given that CA (and no other), for
 * the names and addresses it was issued for only; and the SPKI hash is Chromium's.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { createCa, newKey, spkiHash } from '../../../src/emulator/network/tls.js';

/** Connects to 127.0.0.1:`port` as `servername` trusting `ca`: 'ok' or the verification error's code. */
function handshake(port: number, servername: string, ca: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca }, () => {
      socket.end();
      resolve('ok');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the emulator CA', () => {
  it('issues a server certificate that a client trusting the CA accepts for its names only', async () => {
    const ca = await createCa();
    const key = await newKey();
    const cert = await ca.issue(['shop.test', '127.0.0.1'], key);
    const server = createServer({ key: key.key, cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await handshake(port, 'shop.test', ca.cert)).toBe('ok');
      expect(await handshake(port, 'other.test', ca.cert)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      const stranger = await createCa();
      // Another emulator's CA (same name, another key): the signature does not verify.
      expect(await handshake(port, 'shop.test', stranger.cert)).toBe('CERT_SIGNATURE_FAILURE');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('is a CA, signs its leaves, and names IP addresses as IP addresses', async () => {
    const ca = await createCa();
    const leaf = new X509Certificate(
      await ca.issue(['127.0.0.1', '::1', 'a.test'], await newKey()),
    );
    const root = new X509Certificate(ca.cert);
    expect(root.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkHost('a.test')).toBe('a.test');
    expect(leaf.checkHost('127.0.0.1')).toBeUndefined();
  });

  it("hashes a key's SubjectPublicKeyInfo as Chromium's --ignore-certificate-errors-spki-list reads it", async () => {
    const key = await newKey();
    const ca = await createCa();
    const cert = new X509Certificate(await ca.issue(['a.test'], key));
    const der = cert.publicKey.export({ type: 'spki', format: 'der' });
    expect(spkiHash(key.publicKey)).toBe(createHash('sha256').update(der).digest('base64'));
  });
});
