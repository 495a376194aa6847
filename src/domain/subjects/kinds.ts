/**
 * Identifier families a report can be about. Each kind has one normalisation rule
 * (normalize.ts), so two spellings of the same thing land on one subject node.
 */
export const SUBJECT_KINDS = [
  {
    code: 'ipaddress',
    meaning: 'An IPv4 or IPv6 address, stored in canonical form (RFC 5952 for IPv6; IPv4-mapped IPv6 becomes IPv4).',
  },
  { code: 'cidr', meaning: 'An IP network in CIDR notation (a.b.c.d/n or IPv6/n), host bits zeroed.' },
  { code: 'asn', meaning: 'An autonomous system number, stored as its decimal number ("AS13335" becomes "13335").' },
  {
    code: 'domain',
    meaning: 'A DNS domain name: lower-case ASCII, internationalised names in punycode (xn--), no trailing dot.',
  },
  {
    code: 'url',
    meaning: 'An http or https URL: host normalised, default port and fragment dropped, path and query kept.',
  },
  { code: 'email', meaning: 'An email address: local part kept as given (it is case-sensitive), domain normalised.' },
  { code: 'phone', meaning: 'A phone number in E.164 form: + then 8 to 15 digits.' },
  { code: 'organization', meaning: 'An organisation name: Unicode NFC, whitespace collapsed, lower-cased.' },
  { code: 'transaction', meaning: "An opaque transaction id from the caller's systems (case preserved)." },
  { code: 'account', meaning: "An opaque account id from the caller's systems (case preserved)." },
] as const;

/** The `code` of each entry of a vocabulary, as a tuple type usable by z.enum. */
export function codesOf<const T extends readonly [{ code: string }, ...Array<{ code: string }>]>(
  entries: T,
): { readonly [K in keyof T]: T[K]['code'] } {
  return entries.map((e) => e.code) as never;
}

export const SUBJECT_KIND_CODES = codesOf(SUBJECT_KINDS);
export type SubjectKind = (typeof SUBJECT_KIND_CODES)[number];

export function isSubjectKind(value: unknown): value is SubjectKind {
  return typeof value === 'string' && (SUBJECT_KIND_CODES as readonly string[]).includes(value);
}

/** Outcome of normalising a key: the canonical key, or why the input is not one (a predicate: "must ...", "is not ..."). */
export type KeyResult = { ok: true; key: string } | { ok: false; reason: string };
