import { PAGE_FIELDS } from './paging.ts';

/** The report fields the read tools answer, as a GraphQL fragment on `Report`, and their wire shape. */
export const REPORT_FRAGMENT = /* GraphQL */ `
  fragment McpReport on Report {
    databaseId eventType outcomeCode severity title summary details tags status namespace sharePolicy effectiveVisibility createdAt
    subject { kind key }
    relatedSubjects { role subject { kind key } }
  }`;
export const REPORTS_PAGE = `${PAGE_FIELDS} nodes { ...McpReport }`;

type SubjectRef = { kind: string; key: string };
export type ReportNode = {
  databaseId: number;
  eventType: string;
  outcomeCode: string;
  severity: string;
  title: string;
  summary: string;
  details: string;
  tags: string[];
  status: string;
  namespace: string;
  sharePolicy: string;
  effectiveVisibility: string;
  createdAt: string;
  subject: SubjectRef;
  relatedSubjects: Array<{ role: string; subject: SubjectRef }>;
};

export function shapeReportItem(r: ReportNode) {
  return {
    id: r.databaseId,
    event_type: r.eventType,
    outcome_code: r.outcomeCode,
    severity: r.severity,
    title: r.title,
    summary: r.summary,
    details: r.details,
    tags: r.tags,
    status: r.status,
    namespace: r.namespace,
    share_policy: r.sharePolicy,
    effective_visibility: r.effectiveVisibility,
    created_at: r.createdAt,
    subject: r.subject,
    related_subjects: r.relatedSubjects.map((l) => ({ kind: l.subject.kind, key: l.subject.key, role: l.role })),
  };
}

const str = { type: 'string' };
export const subjectRefSchema = { type: 'object', properties: { kind: str, key: str } };
export const reportItemSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    event_type: str,
    outcome_code: str,
    severity: str,
    title: str,
    summary: str,
    details: str,
    tags: { type: 'array', items: str },
    status: str,
    namespace: str,
    share_policy: str,
    effective_visibility: str,
    created_at: { type: 'string', format: 'date-time' },
    subject: subjectRefSchema,
    related_subjects: { type: 'array', items: { type: 'object', properties: { kind: str, key: str, role: str } } },
  },
};
