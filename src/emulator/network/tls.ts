/**
 * The emulator's certificates: a CA made for this emulator (its PEM is the handle's `ca`), the
 * server certificate of `startEmulator({ tls: true })`, and the leaf certificates with which a
 * session's exit answers `https://` to a published host. Keys come from node:crypto (native,
 * fast); certificates are built and signed by node-forge, imported lazily so an emulator without
 * TLS never loads it.
 */
import { createHash, createPublicKey, generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

export interface KeyPairPem {
  key: string;
  /** The public key as a SubjectPublicKeyInfo PEM. */
  publicKey: string;
}

/** A fresh RSA 2048 key (what every TLS client accepts), generated off the main thread. */
export async function newKey(): Promise<KeyPairPem> {
  const { publicKey, privateKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { key: privateKey, publicKey };
}

/** base64 SHA-256 of a key's SubjectPublicKeyInfo: Chromium's `--ignore-certificate-errors-spki-list`. */
export function spkiHash(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

type Forge = typeof import('node-forge');
let forgeModule: Promise<Forge> | undefined;
async function forge(): Promise<Forge> {
  forgeModule ??= import('node-forge').then(
    (m) => ((m as { default?: Forge }).default ?? m) as Forge,
  );
  return forgeModule;
}

const DAY = 24 * 60 * 60 * 1000;

async function certificate(
  subjectKey: KeyPairPem,
  signer: { key: string; cert?: string },
  commonName: string,
  extensions: object[],
): Promise<string> {
  const { pki, md } = await forge();
  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(subjectKey.publicKey);
  // A positive serial (first bit clear), random so two emulators' certificates never collide.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now - DAY);
  cert.validity.notAfter = new Date(now + 365 * DAY);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  const issuer = signer.cert ? pki.certificateFromPem(signer.cert).subject.attributes : undefined;
  cert.setIssuer(issuer ?? [{ name: 'commonName', value: commonName }]);
  cert.setExtensions(extensions);
  cert.sign(pki.privateKeyFromPem(signer.key), md.sha256.create());
  return pki.certificateToPem(cert);
}

export interface EmulatorCa {
  /** The CA certificate (PEM): what a client trusts, e.g. through NODE_EXTRA_CA_CERTS. */
  cert: string;
  /** A certificate for these DNS names and IP addresses, signed by this CA, for `key`. */
  issue(names: readonly string[], key: KeyPairPem): Promise<string>;
}

/** A CA made now, for this emulator only; its key never leaves the process. */
export async function createCa(): Promise<EmulatorCa> {
  const caKey = await newKey();
  const cert = await certificate(caKey, { key: caKey.key }, 'remote-browser emulator CA', [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  return {
    cert,
    issue: (names, key) =>
      certificate(key, { key: caKey.key, cert }, names[0] ?? 'localhost', [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: names.map((name) =>
            /^[\d.]+$|:/.test(name) ? { type: 7, ip: name } : { type: 2, value: name },
          ),
        },
      ]),
  };
}
