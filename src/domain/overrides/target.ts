import { parseIp } from '../network/ip.ts';
import { bytesToWords, wordsText } from '../network/address-words.ts';
import { networkOf } from '../network/cidr.ts';

/**
 * What an override rule names, read from one text: an IP ("203.0.113.7"), a CIDR block ("203.0.113.0/24"),
 * an autonomous system ("AS64500") or a country (ISO 3166-1 alpha-2, "NL"). The forms cannot be mistaken for
 * one another, so the caller sends the text alone and the answer says which kind it was read as.
 */
export type TargetKind = 'ip' | 'cidr' | 'asn' | 'country';
export const TARGET_KINDS: readonly TargetKind[] = ['ip', 'cidr', 'asn', 'country'];
export const TARGET_KIND_MEANINGS: ReadonlyArray<{ code: TargetKind; meaning: string }> = [
  { code: 'ip', meaning: 'One address.' },
  { code: 'cidr', meaning: 'A CIDR block: every address in it.' },
  { code: 'asn', meaning: 'An autonomous system (AS<n>): every address it announces.' },
  { code: 'country', meaning: 'A country (ISO 3166-1 alpha-2): every address located in it.' },
];

export type Target = { kind: TargetKind; key: string; version?: 4 | 6; prefix?: number };
export type TargetParse = { ok: true; target: Target } | { ok: false; reason: string };

/**
 * The widest block a rule may name per family: a rule wider than this is a country or network decision,
 * which the asn and country targets express without taking a whole /0 with one typo.
 */
export const CIDR_BOUNDS = { 4: 8, 6: 16 } as const;
const MAX_ASN = 4_294_967_295;
const regions = new Intl.DisplayNames(['en'], { type: 'region' });

/** `expected` names the forms the caller takes, for the message of a text that is none of them. */
export function parseTarget(
  input: string,
  expected = 'an IP address, a CIDR block, an AS number (AS64500) or a country code (NL)',
): TargetParse {
  const text = input.trim();
  if (/^as\d{1,10}$/i.test(text)) {
    const asn = Number(text.slice(2));
    if (asn < 1 || asn > MAX_ASN) return { ok: false, reason: `must be an AS number from AS1 to AS${MAX_ASN}` };
    return { ok: true, target: { kind: 'asn', key: `AS${asn}` } };
  }
  if (/^[a-z]{2}$/i.test(text)) {
    const code = text.toUpperCase();
    const name = regions.of(code);
    // Intl names every assigned region and echoes the code (or "Unknown Region") for the rest.
    if (!name || name === code || name === 'Unknown Region')
      return { ok: false, reason: `is not an ISO 3166-1 alpha-2 country code: ${code}` };
    return { ok: true, target: { kind: 'country', key: code } };
  }
  const slash = text.indexOf('/');
  if (slash < 0) {
    const ip = parseIp(text);
    if (!ip.ok) return { ok: false, reason: `must be ${expected}; as an address it ${ip.reason}` };
    return { ok: true, target: { kind: 'ip', key: ip.canonical, version: ip.version } };
  }
  return parseCidr(text.slice(0, slash), text.slice(slash + 1));
}

function parseCidr(address: string, prefixText: string): TargetParse {
  const ip = parseIp(address);
  if (!ip.ok) return { ok: false, reason: `has a block address that ${ip.reason}` };
  if (ip.version === 4 && address.includes(':'))
    return { ok: false, reason: 'is an IPv4-mapped IPv6 block; write it as an IPv4 block (such as 203.0.113.0/24)' };
  const bits = ip.version === 4 ? 32 : 128;
  const bound = CIDR_BOUNDS[ip.version];
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= bound && prefix <= bits))
    return { ok: false, reason: `must have an IPv${ip.version} prefix length of ${bound} to ${bits}` };
  const words = bytesToWords(ip.bytes);
  const network = wordsText(networkOf(words, prefix));
  // A rule acts on every address of its block: host bits set are refused rather than guessed at.
  if (network !== ip.canonical) return { ok: false, reason: `has host bits set; the block is ${network}/${prefix}` };
  return { ok: true, target: { kind: 'cidr', key: `${network}/${prefix}`, version: ip.version, prefix } };
}
