import { AppError } from '../../errors.ts';
import { isSubjectKind, SUBJECT_KIND_CODES, type KeyResult, type SubjectKind } from './kinds.ts';
import { codePointLength, textProblem } from './text.ts';
import { normalizeDomain } from './domain.ts';
import { normalizeAsnKey, normalizeCidrKey, normalizeIpKey } from './network-keys.ts';
import { normalizeEmailKey, normalizePhoneKey, normalizeUrlKey } from './contact-keys.ts';

export type { KeyResult } from './kinds.ts';

/** No kind's key is longer than this before normalisation (URLs, the longest, allow 2048). */
export const MAX_RAW_KEY = 4096;
const fail = (reason: string): KeyResult => ({ ok: false, reason });

/** Organisation names as people write them: "ACME  Corp" and "acme corp" are the same organisation. */
function normalizeOrganization(input: string): KeyResult {
  const key = input.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();
  if (key.length === 0) return fail('must not be empty');
  if (codePointLength(key) > 200) return fail('must be at most 200 characters');
  return { ok: true, key };
}

/** Ids from the caller's systems: compared exactly, so case is kept and nothing is rewritten but outer spaces. */
function normalizeOpaqueId(input: string): KeyResult {
  const key = input.trim();
  if (key.length === 0) return fail('must not be empty');
  if (/\s/u.test(key)) return fail('must not contain whitespace');
  if (codePointLength(key) > 128) return fail('must be at most 128 characters');
  return { ok: true, key };
}

const NORMALIZERS: Record<SubjectKind, (input: string) => KeyResult> = {
  ipaddress: normalizeIpKey,
  cidr: normalizeCidrKey,
  asn: normalizeAsnKey,
  domain: normalizeDomain,
  url: normalizeUrlKey,
  email: normalizeEmailKey,
  phone: normalizePhoneKey,
  organization: normalizeOrganization,
  transaction: normalizeOpaqueId,
  account: normalizeOpaqueId,
};

/**
 * The one canonical key for an identifier of the given kind, so every spelling of the same
 * thing maps to one subject node (see kinds.ts for each rule). Control characters and lone
 * surrogates are refused for every kind before the kind's own rule runs.
 */
export function normalizeSubjectKey(kind: SubjectKind, key: string): KeyResult {
  if (typeof key !== 'string') return fail('must be a string');
  const normalize = NORMALIZERS[kind];
  if (!normalize) return fail(`cannot be checked: unknown kind ${JSON.stringify(kind)}`);
  if (key.length > MAX_RAW_KEY) return fail(`is too long (at most ${MAX_RAW_KEY} characters before normalisation)`);
  const problem = textProblem(key);
  if (problem) return fail(problem);
  return normalize(key);
}

/** A kind named by a caller (a query argument), or invalid_request listing the kinds. */
export function requireKind(kind: string): SubjectKind {
  if (!isSubjectKind(kind))
    throw new AppError('invalid_request', `kind must be one of: ${SUBJECT_KIND_CODES.join(', ')}`, [
      { field: 'kind', message: 'unknown kind' },
    ]);
  return kind;
}

/** A subject named by a caller, as stored: its kind checked and its key normalised like on write, or invalid_request. */
export function requireSubject(kind: string, key: string): { kind: SubjectKind; key: string } {
  const checked = requireKind(kind);
  const normalized = normalizeSubjectKey(checked, key);
  if (!normalized.ok)
    throw new AppError('invalid_request', `key ${normalized.reason}`, [{ field: 'key', message: normalized.reason }]);
  return { kind: checked, key: normalized.key };
}
