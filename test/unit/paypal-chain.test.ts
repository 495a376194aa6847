import { describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { createRootCa } from '../../src/cli/dev-pki.ts';
import { parsePemChain, TrustAnchors, verifyChain } from '../../src/domain/billing/paypal-signature.ts';

/** Path building of the webhook certificate chain, beyond the four HTTP cases of control-plane-webhooks.test.ts. */
const NAME = 'messageverificationcerts.paypal.com';
const DAY = 86_400_000;
const root = createRootCa('Unit Root CA');
const inter = root.issue({ cn: 'Unit Intermediate CA', ca: true });
const leaf = inter.issue({ cn: NAME, dns: [NAME] });
const anchors = new TrustAnchors(root.cert);
const check = (pem: string, a = anchors, now = Date.now()) => {
  try {
    return verifyChain(parsePemChain(pem), a, now).subject;
  } catch (e) {
    return (e as Error).message;
  }
};

describe('webhook certificate chain', () => {
  it("trusts Node's bundled roots plus only the configured extra anchors", () => {
    expect(anchors.list().length).toBe(rootCertificates.length + 1);
    expect(check(leaf.cert + inter.cert)).toBe(`CN=${NAME}`);
    expect(check(leaf.cert + inter.cert, new TrustAnchors())).toMatch(/does not chain to a trusted root/);
  });

  it('finds the path whatever the order of the served intermediates, ignoring unrelated certificates', () => {
    const other = createRootCa('Unrelated CA');
    expect(check(leaf.cert + other.cert + root.cert + inter.cert)).toBe(`CN=${NAME}`);
  });

  it('refuses a leaf whose intermediate is missing', () => {
    expect(check(leaf.cert)).toMatch(/does not chain to a trusted root/);
  });

  it('refuses a "chain" through a certificate that is not a CA (a leaf signing another leaf)', () => {
    const notCa = root.issue({ cn: 'Just A Leaf', dns: ['leaf.example'] });
    const below = notCa.issue({ cn: NAME, dns: [NAME] });
    // OpenSSL's issuer check already refuses it (keyUsage without keyCertSign); the CA flag is checked too.
    expect(check(below.cert + notCa.cert)).toMatch(/does not chain to a trusted root|is not a CA certificate/);
  });

  it('refuses a leaf outside its validity, and a chain to an anchor that has expired', () => {
    expect(check(leaf.cert + inter.cert, anchors, Date.now() + 400 * DAY)).toBe('signing certificate is not valid now');
    const oldRoot = createRootCa('Old Root CA', {
      notBefore: new Date(Date.now() - 30 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    const oldLeaf = oldRoot.issue({ cn: NAME, dns: [NAME] });
    expect(check(oldLeaf.cert, new TrustAnchors(oldRoot.cert))).toMatch(/trusted root Old Root CA is not valid now/);
  });

  it('matches the name exactly: no wildcard certificate, and the CN counts only without a subjectAltName', () => {
    const wildcard = inter.issue({ cn: '*.paypal.com', dns: ['*.paypal.com'] });
    expect(check(wildcard.cert + inter.cert)).toMatch(/names \*\.paypal\.com, not/);
    const cnOnly = inter.issue({ cn: NAME });
    expect(check(cnOnly.cert + inter.cert)).toBe(`CN=${NAME}`);
    const sanElsewhere = inter.issue({ cn: NAME, dns: ['other.example'] });
    expect(check(sanElsewhere.cert + inter.cert)).toMatch(/not messageverificationcerts/);
  });

  it('refuses a configured CA file without a certificate, and a document without PEM', () => {
    expect(() => new TrustAnchors('not a certificate')).toThrow(/no PEM certificate/);
    expect(() => parsePemChain('hello')).toThrow(/no PEM certificate/);
    expect(new X509Certificate(leaf.cert).checkIssued(new X509Certificate(inter.cert))).toBe(true);
  });
});
