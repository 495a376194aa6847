/**
 * The closed vocabularies of `rate` and `report` (the spec shows only example values; these
 * are the decided sets). Each entry carries a one-line meaning used by the README, the
 * OpenAPI descriptions and GraphQL docs, so the documentation is generated from the same list
 * the validator enforces. `*_CODES` are the tuples z.enum takes.
 */
import { codesOf } from '../subjects/kinds.ts';

export { SUBJECT_KINDS, SUBJECT_KIND_CODES, type SubjectKind } from '../subjects/kinds.ts';

export const RATINGS = [
  { value: 1, code: 'good', meaning: 'The IP behaved legitimately for your business.' },
  { value: 0, code: 'neutral', meaning: 'Seen, with no signal either way.' },
  { value: -1, code: 'bad', meaning: 'The IP was involved in abuse or fraud.' },
] as const;
export const RATING_VALUES = [1, 0, -1] as const;
export type Rating = (typeof RATING_VALUES)[number];

export const OUTCOMES = [
  { code: 'fraud_confirmed', direction: 'risk', meaning: 'Fraud was confirmed (e.g. by investigation or the victim).' },
  { code: 'chargeback', direction: 'risk', meaning: 'A payment was charged back.' },
  {
    code: 'account_takeover',
    direction: 'risk',
    meaning: 'An account was taken over by someone other than its owner.',
  },
  { code: 'credential_stuffing', direction: 'risk', meaning: 'Automated login attempts with leaked credentials.' },
  { code: 'fraud_watch', direction: 'risk', meaning: 'Suspected fraud, under watch but not confirmed.' },
  { code: 'spam', direction: 'risk', meaning: 'Unsolicited bulk messages or content.' },
  { code: 'scraping', direction: 'risk', meaning: 'Unwanted automated content harvesting.' },
  {
    code: 'bot_activity',
    direction: 'risk',
    meaning: 'Automated traffic posing as people (other than scraping or stuffing).',
  },
  { code: 'abuse_other', direction: 'risk', meaning: 'Abuse not covered by another code (say what in the details).' },
  { code: 'legitimate', direction: 'benign', meaning: 'Checked and found legitimate.' },
  { code: 'false_positive', direction: 'benign', meaning: 'An earlier risk signal about this subject was wrong.' },
] as const;
export const OUTCOME_CODES = codesOf(OUTCOMES);
export type OutcomeCode = (typeof OUTCOME_CODES)[number];
/** Whether an outcome raises ('risk') or lowers ('benign') the subject's risk. */
export function outcomeDirection(code: OutcomeCode): 'risk' | 'benign' {
  return OUTCOMES.find((o) => o.code === code)!.direction;
}

export const SEVERITIES = [
  { code: 'info', meaning: 'For the record; no action expected.' },
  { code: 'low', meaning: 'Minor impact.' },
  { code: 'medium', meaning: 'Noticeable impact (the default).' },
  { code: 'high', meaning: 'Serious impact; act soon.' },
  { code: 'critical', meaning: 'Severe or ongoing impact; act now.' },
] as const;
export const SEVERITY_CODES = codesOf(SEVERITIES);
export type Severity = (typeof SEVERITY_CODES)[number];
export const DEFAULT_SEVERITY: Severity = 'medium';

export const ROLES = [
  { code: 'source_ip', meaning: 'The IP the activity came from.' },
  { code: 'destination_ip', meaning: 'The IP the activity targeted.' },
  { code: 'hosting', meaning: 'Infrastructure (network, ASN, provider) that hosted the activity.' },
  { code: 'domain', meaning: 'A domain used in the activity.' },
  { code: 'url', meaning: 'A URL used in the activity.' },
  { code: 'email', meaning: 'An email address used in the activity.' },
  { code: 'phone', meaning: 'A phone number used in the activity.' },
  { code: 'account', meaning: 'An account used or affected.' },
  { code: 'payment', meaning: 'A payment instrument or transaction involved.' },
  { code: 'organization', meaning: 'An organisation involved.' },
  { code: 'linked', meaning: 'Related in some other way (the default).' },
] as const;
export const ROLE_CODES = codesOf(ROLES);
export type Role = (typeof ROLE_CODES)[number];
export const DEFAULT_ROLE: Role = 'linked';

export const SHARE_POLICIES = [
  { code: 'clear_share', tlp: 'TLP:CLEAR', meaning: 'May be published to everyone (the default).' },
  { code: 'green_share', tlp: 'TLP:GREEN', meaning: 'May be shared with the community, not published openly.' },
  { code: 'amber_share', tlp: 'TLP:AMBER', meaning: 'The workspace and its clients only.' },
  { code: 'amber_strict_share', tlp: 'TLP:AMBER+STRICT', meaning: 'The workspace only.' },
  { code: 'red_share', tlp: 'TLP:RED', meaning: 'Named recipients only.' },
] as const;
export const SHARE_POLICY_CODES = codesOf(SHARE_POLICIES);
export type SharePolicy = (typeof SHARE_POLICY_CODES)[number];
export const DEFAULT_SHARE_POLICY: SharePolicy = 'clear_share';
/** Policies under which a report may feed the global published summaries. */
export const SHAREABLE_POLICIES = ['clear_share', 'green_share'] as const satisfies readonly SharePolicy[];

export const VISIBILITIES = [
  { code: 'workspace', meaning: 'Only this workspace sees the report (the default).' },
  {
    code: 'community',
    meaning:
      'Also feeds the global published summaries; honoured only under a shareable share policy (clear_share, green_share).',
  },
] as const;
export const VISIBILITY_CODES = codesOf(VISIBILITIES);
export type Visibility = (typeof VISIBILITY_CODES)[number];
export const DEFAULT_VISIBILITY: Visibility = 'workspace';

export const EVENT_TYPES = [
  { code: 'observation', meaning: 'Something seen, not (yet) a confirmed result (the default).' },
  { code: 'outcome', meaning: 'A confirmed result, e.g. a chargeback received or fraud confirmed.' },
  { code: 'alert', meaning: 'A warning raised by an automated system.' },
] as const;
export const EVENT_TYPE_CODES = codesOf(EVENT_TYPES);
export type EventType = (typeof EVENT_TYPE_CODES)[number];
export const DEFAULT_EVENT_TYPE: EventType = 'observation';

export const REPORT_STATUSES = [
  { code: '', meaning: 'No workflow status (the default).' },
  { code: 'open', meaning: 'Under investigation.' },
  { code: 'confirmed', meaning: 'Investigated and confirmed.' },
  { code: 'disputed', meaning: 'Contested by the subject or another party.' },
  { code: 'resolved', meaning: 'Closed; no further action.' },
] as const;
export const REPORT_STATUS_CODES = codesOf(REPORT_STATUSES);
export type ReportStatus = (typeof REPORT_STATUS_CODES)[number];

/**
 * The visibility a report actually gets. `community` publishes into the global summaries,
 * which only a shareable (TLP:CLEAR / TLP:GREEN) policy permits; otherwise the report stays
 * in the workspace and the notice says why, so the caller is never silently overridden.
 */
export function effectiveVisibility(
  requested: Visibility,
  sharePolicy: SharePolicy,
): { effective: Visibility; notice: string } {
  if (requested !== 'community' || (SHAREABLE_POLICIES as readonly string[]).includes(sharePolicy)) {
    return { effective: requested, notice: '' };
  }
  const tlp = SHARE_POLICIES.find((p) => p.code === sharePolicy)?.tlp ?? sharePolicy;
  return {
    effective: 'workspace',
    notice:
      `Visibility community was downgraded to workspace: share policy ${sharePolicy} (${tlp}) does not allow ` +
      `publishing to community summaries; use ${SHAREABLE_POLICIES.join(' or ')} to contribute to them.`,
  };
}
