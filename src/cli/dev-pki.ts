import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A tiny certificate authority for the dev provider (a PayPal test double) and the tests, made with
 * the `openssl` command: a root, intermediates and leaves with chosen names and validity periods
 * (past ones included: `openssl ca -startdate/-enddate`). Never used by the production adapter,
 * which only trusts what PAYPAL_CERT_CA_FILE and Node's bundled roots say.
 */
export type CertSpec = {
  /** Subject common name. */
  cn: string;
  /** subjectAltName dNSName entries (none by default). */
  dns?: string[];
  /** A CA certificate (may issue others) rather than a leaf. */
  ca?: boolean;
  notBefore?: Date;
  notAfter?: Date;
};

export type Issued = {
  cert: string;
  key: string;
  /** Issues a certificate signed by this one's key. */
  issue(spec: CertSpec): Issued;
};

const DAY = 86_400_000;
const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z'); // YYYYMMDDHHMMSSZ

function openssl(dir: string, args: string[]) {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function make(spec: CertSpec, issuer: { cert: string; key: string } | null): Issued {
  const dir = mkdtempSync(path.join(tmpdir(), 'dev-pki-'));
  try {
    const ext = spec.ca
      ? ['basicConstraints = critical,CA:TRUE', 'keyUsage = critical,keyCertSign,cRLSign']
      : ['basicConstraints = critical,CA:FALSE', 'keyUsage = critical,digitalSignature'];
    if (spec.dns?.length) ext.push(`subjectAltName = ${spec.dns.map((d) => `DNS:${d}`).join(',')}`);
    ext.push('subjectKeyIdentifier = hash', ...(issuer ? ['authorityKeyIdentifier = keyid'] : []));
    writeFileSync(
      path.join(dir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = dev',
        '[dev]',
        'database = index.txt',
        'new_certs_dir = .',
        'serial = serial',
        'default_md = sha256',
        'policy = any',
        'unique_subject = no',
        'copy_extensions = none',
        '[any]',
        'commonName = supplied',
        '[ext]',
        ...ext,
        '',
      ].join('\n'),
    );
    writeFileSync(path.join(dir, 'index.txt'), '');
    writeFileSync(path.join(dir, 'serial'), `01${randomBytes(15).toString('hex')}\n`); // unique, positive
    const subj = `/CN=${spec.cn.replace(/[/\\]/g, '')}`;
    // Leaves sign webhooks SHA256withRSA, so they get RSA keys; CA keys are P-256 (much faster to make).
    const keyArgs = spec.ca ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'] : ['-newkey', 'rsa:2048'];
    openssl(dir, ['req', '-new', ...keyArgs, '-nodes', '-subj', subj, '-keyout', 'key.pem', '-out', 'req.csr']);
    if (issuer) {
      writeFileSync(path.join(dir, 'issuer.pem'), issuer.cert);
      writeFileSync(path.join(dir, 'issuer.key'), issuer.key);
    }
    const notBefore = spec.notBefore ?? new Date(Date.now() - 60_000);
    const notAfter = spec.notAfter ?? new Date(Date.now() + 30 * DAY);
    openssl(dir, [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-notext',
      '-extensions',
      'ext',
      '-in',
      'req.csr',
      '-out',
      'cert.pem',
      '-startdate',
      stamp(notBefore),
      '-enddate',
      stamp(notAfter),
      ...(issuer ? ['-cert', 'issuer.pem', '-keyfile', 'issuer.key'] : ['-selfsign', '-keyfile', 'key.pem']),
    ]);
    const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
      key = readFileSync(path.join(dir, 'key.pem'), 'utf8');
    return toIssued(cert, key);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function toIssued(cert: string, key: string): Issued {
  return { cert, key, issue: (spec) => make(spec, { cert, key }) };
}

/** A self-signed root CA. */
export function createRootCa(cn: string, validity: { notBefore?: Date; notAfter?: Date } = {}): Issued {
  return make({ cn, ca: true, notAfter: new Date(Date.now() + 365 * DAY), ...validity }, null);
}

/** A CA whose certificate and key were made earlier (e.g. kept on disk between runs). */
export function loadCa(cert: string, key: string): Issued {
  return toIssued(cert, key);
}
