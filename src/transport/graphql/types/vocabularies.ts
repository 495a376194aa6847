import { builder } from '../builder.ts';
import {
  EVENT_TYPES,
  OUTCOMES,
  ROLES,
  SEVERITIES,
  SHARE_POLICIES,
  SUBJECT_KINDS,
  VISIBILITIES,
  type OutcomeCode,
} from '../../../domain/memory/vocabulary.ts';
import { RISK_LEVELS } from '../../../domain/scoring/levels.ts';
import { COMMUNITY_LABELS, UNAVAILABLE_LABEL } from '../../../domain/community/signal.ts';
import { DIMENSION_CODES, type DimensionCode } from '../../../domain/network/types.ts';
import { enumValues } from '../enum-values.ts';

/**
 * The closed vocabularies as GraphQL enums. Each value is spelled as REST and the database spell it
 * (`fraud_watch`, `clear_share`), so variables carry the same strings as REST bodies, and answers read the same on
 * every surface; only a literal in a document loses its quotes (`outcomeCode: fraud_watch`). Each value's
 * description is the domain's own meaning. The report `status` stays a String: its default value is "" (no status),
 * which cannot be an enum value.
 */
function vocabulary<const V extends string>(
  name: string,
  description: string,
  entries: ReadonlyArray<{ code: V; meaning: string }>,
) {
  return builder.enumType(name, { description, values: enumValues(entries) });
}

export const SubjectKindEnum = vocabulary(
  'SubjectKind',
  'Identifier family of a subject; each has one normalisation rule for its keys.',
  SUBJECT_KINDS,
);
export const OutcomeCodeEnum = vocabulary(
  'OutcomeCode',
  "What a report says happened: a risk outcome raises the subject's risk, a benign one lowers it.",
  OUTCOMES.map((o) => ({ code: o.code, meaning: `${o.direction === 'risk' ? 'Risk' : 'Benign'}: ${o.meaning}` })),
);
export const SeverityEnum = vocabulary('Severity', 'How serious a reported event is.', SEVERITIES);
export const SubjectRoleEnum = vocabulary('SubjectRole', 'The role a related subject played in a report.', ROLES);
export const SharePolicyEnum = vocabulary(
  'SharePolicy',
  'TLP 2.0 style share policy of a report: who may see it beyond the workspace.',
  SHARE_POLICIES.map((p) => ({ code: p.code, meaning: `${p.tlp}. ${p.meaning}` })),
);
export const VisibilityEnum = vocabulary('Visibility', 'Who sees a report.', VISIBILITIES);
export const EventTypeEnum = vocabulary('EventType', 'Kind of reported event.', EVENT_TYPES);
export const RiskLevelEnum = vocabulary(
  'RiskLevel',
  'The word for a 0-100 risk score; each level covers one band of scores.',
  RISK_LEVELS.map((l) => ({ code: l.level, meaning: `Scores ${l.min}-${l.max}.` })),
);
export const CommunityLabelEnum = vocabulary(
  'CommunityLabel',
  "State of an IP's lookup activity across all workspaces, the first that holds.",
  [
    ...COMMUNITY_LABELS.map((l) => ({
      code: l.label,
      meaning: `${l.meaning[0]!.toUpperCase()}${l.meaning.slice(1)}.`,
    })),
    { code: UNAVAILABLE_LABEL, meaning: 'The signal could not be read for this call (ok is false).' },
  ],
);

const DIMENSION_MEANINGS: Record<DimensionCode, string> = {
  ip: 'The address itself (key: the canonical address).',
  subnet: 'The announced prefix holding the address, or its /24 (IPv4) or /48 (IPv6) (key: CIDR).',
  isp: "The network operator's brand, derived from the AS organisation (key: lower-case brand).",
  asn: 'The autonomous system announcing the address (key: AS<number>).',
  org: 'The organisation registered for the AS (key: lower-case name).',
  city: 'The city the geolocation data places the address in (key: <CC>-<region>-<city>).',
  region: 'Its region (key: <CC>-<region>).',
  country: 'Its country (key: ISO 3166-1 alpha-2).',
};
export const DimensionCodeEnum = vocabulary(
  'DimensionCode',
  "One of the eight dimensions of an IP's report hierarchy, most specific first.",
  DIMENSION_CODES.map((code) => ({ code, meaning: DIMENSION_MEANINGS[code] })),
);

/** Reports under one outcome code: check_block's byOutcome and a score dimension's reported outcomes. */
export const OutcomeCountRef = builder.objectRef<{ outcomeCode: string; reports: number }>('OutcomeCount').implement({
  description: 'Reports with one outcome code.',
  fields: (t) => ({
    outcomeCode: t.field({
      type: OutcomeCodeEnum,
      description: 'Outcome code.',
      resolve: (o) => o.outcomeCode as OutcomeCode,
    }),
    reports: t.exposeInt('reports', { description: 'Reports with it.' }),
  }),
});
