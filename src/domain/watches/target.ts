import { parseTarget } from '../overrides/target.ts';
import { normalizeSubjectKey } from '../subjects/normalize.ts';
import { isSubjectKind, SUBJECT_KIND_CODES, type SubjectKind } from '../subjects/kinds.ts';

/**
 * What a watch names. ip, cidr and asn are read from one text exactly as override rules read theirs
 * (overrides/target.ts: same canonical forms, same CIDR bounds); subject is any other report subject, stored as
 * "<kind>:<normalised key>" (subjects/normalize.ts, the rule every report's subject goes through).
 */
export type WatchTargetKind = 'ip' | 'cidr' | 'asn' | 'subject';
export const WATCH_TARGET_KINDS: readonly WatchTargetKind[] = ['ip', 'cidr', 'asn', 'subject'];
export const WATCH_TARGET_KIND_MEANINGS: ReadonlyArray<{ code: WatchTargetKind; meaning: string }> = [
  { code: 'ip', meaning: 'One address: its score and level, its community signal, reports naming it.' },
  {
    code: 'cidr',
    meaning: 'A CIDR block: the published subnet covering it, its community signal, reports naming the block.',
  },
  { code: 'asn', meaning: 'An autonomous system: its published summary, its community signal, reports naming it.' },
  { code: 'subject', meaning: 'Any other report subject (domain, url, email, ...): reports naming it.' },
];

export type WatchTarget = { kind: WatchTargetKind; key: string };
export type WatchTargetParse = { ok: true; target: WatchTarget } | { ok: false; field: string; reason: string };

/** Subject kinds a watch names through target instead: one watch per thing, one canonical form for it. */
const NETWORK_SUBJECT_KINDS: Partial<Record<SubjectKind, string>> = {
  ipaddress: 'an IP address',
  cidr: 'a CIDR block',
  asn: 'an AS number',
};
export const WATCHABLE_SUBJECT_KINDS = SUBJECT_KIND_CODES.filter((k) => !(k in NETWORK_SUBJECT_KINDS));

/** An IP, CIDR block or AS number (the country form of override rules is refused: a country has no watch events). */
export function parseNetworkTarget(text: string): WatchTargetParse {
  const parsed = parseTarget(text, 'an IP address, a CIDR block or an AS number (AS64500)');
  if (!parsed.ok) return { ok: false, field: 'target', reason: parsed.reason };
  if (parsed.target.kind === 'country')
    return {
      ok: false,
      field: 'target',
      reason: 'must be an IP address, a CIDR block or an AS number; countries cannot be watched',
    };
  return { ok: true, target: { kind: parsed.target.kind, key: parsed.target.key } };
}

/** A report subject other than an address, block or AS, its key normalised as reports store it. */
export function parseSubjectTarget(kind: string, key: string): WatchTargetParse {
  if (!isSubjectKind(kind))
    return { ok: false, field: 'subject.kind', reason: `must be one of: ${WATCHABLE_SUBJECT_KINDS.join(', ')}` };
  const network = NETWORK_SUBJECT_KINDS[kind];
  if (network) return { ok: false, field: 'subject.kind', reason: `${kind}: watch ${network} with target instead` };
  const normalized = normalizeSubjectKey(kind, key);
  if (!normalized.ok) return { ok: false, field: 'subject.key', reason: normalized.reason };
  return { ok: true, target: { kind: 'subject', key: `${kind}:${normalized.key}` } };
}

/**
 * The watch target a report subject is, for matching reports to watches: an ipaddress subject is an ip watch,
 * a cidr subject a cidr watch (same canonical text), an asn subject ("64500") an asn watch ("AS64500").
 */
export function watchTargetOfSubject(kind: string, key: string): WatchTarget {
  switch (kind) {
    case 'ipaddress':
      return { kind: 'ip', key };
    case 'cidr':
      return { kind: 'cidr', key };
    case 'asn':
      return { kind: 'asn', key: `AS${key}` };
    default:
      return { kind: 'subject', key: `${kind}:${key}` };
  }
}
