import { domainToASCII } from 'node:url';
import type { KeyResult } from './kinds.ts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
// WHATWG URL parsers read a host whose last label is a number (decimal, or 0x hex) as an IPv4
// address, so such a name can never be reached as a domain; refusing it also keeps IPs out.
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/;
// Characters that mean the caller sent a URL, an email or a host:port rather than a bare name.
const NOT_IN_A_NAME = /[\s/\\:@?#[\]%]/u;

const fail = (reason: string): KeyResult => ({ ok: false, reason });

/**
 * Canonical form of a DNS name: trimmed, one trailing dot removed, IDNA (UTS #46, non-transitional)
 * to ASCII, which also lower-cases, so "Bücher.Example." and "xn--bcher-kva.example" are one key.
 * Labels are letters/digits/hyphens (LDH); underscores (SRV/DKIM owner names) are not hosts, so refused.
 */
export function normalizeDomain(input: string): KeyResult {
  let text = input.trim();
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text.length === 0) return fail('must not be empty');
  if (text.length > 1024) return fail('is too long to be a domain name (at most 253 characters)');
  const odd = NOT_IN_A_NAME.exec(text);
  if (odd)
    return fail(`is not a domain name: it contains ${JSON.stringify(odd[0])} (give the bare name, e.g. example.com)`);
  const numeric = 'ends in a numeric label, so it is an IP address rather than a domain (use kind ipaddress)';
  if (NUMERIC_LABEL.test(text.slice(text.lastIndexOf('.') + 1).toLowerCase())) return fail(numeric);
  const ascii = domainToASCII(text);
  if (ascii === '') return fail('is not a valid domain name (IDNA conversion to ASCII failed)');
  if (ascii.length > 253) return fail('must be at most 253 characters in its ASCII (punycode) form');
  const labels = ascii.split('.');
  if (labels.length < 2) return fail('must have at least two labels, e.g. example.com');
  for (const label of labels) {
    if (label.length === 0) return fail('must not contain an empty label (two dots in a row, or a leading dot)');
    if (label.length > 63) return fail(`has a label longer than 63 characters (${label.slice(0, 20)}...)`);
    if (!LABEL.test(label)) {
      return fail(
        `has an invalid label ${JSON.stringify(label)}: labels use only a-z, 0-9 and '-', and do not start or end with '-'`,
      );
    }
  }
  // Again after IDNA: full-width digits ("１") only become ASCII digits there.
  if (NUMERIC_LABEL.test(labels.at(-1)!)) return fail(numeric);
  return { ok: true, key: ascii };
}
