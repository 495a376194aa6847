import { defineOperation } from './operation.ts';

/** The fixed operations behind POST /risk_api/rate/ and /risk_api/report/ and their spec shapes. */
export const rateOperation = defineOperation('rate', /* GraphQL */ `
  mutation Rate($input: RateInput!, $idempotencyKey: String) {
    rate(input: $input, idempotencyKey: $idempotencyKey) {
      replayed
      rating { ip rating createdAt }
    }
  }`);

type RateData = { rate: { replayed: boolean; rating: { ip: string; rating: number; createdAt: string } } };

export function shapeRate(data: RateData) {
  const r = data.rate.rating;
  return {
    body: {
      ok: true, endpoint: 'rate',
      quota: { counted: false, reason: 'free_endpoint' },
      report: { ip: r.ip, rating: r.rating, created_at: r.createdAt },
    },
    replayed: data.rate.replayed,
  };
}

export const reportOperation = defineOperation('report', /* GraphQL */ `
  mutation Report($input: ReportInput!, $idempotencyKey: String) {
    report(input: $input, idempotencyKey: $idempotencyKey) {
      replayed
      report {
        databaseId eventType outcomeCode title summary severity status namespace tags createdAt
        sharePolicy requestedVisibility effectiveVisibility policyNotice
        subject { kind key }
        relatedSubjects { role subject { kind key } }
      }
    }
  }`);

type ReportData = { report: { replayed: boolean; report: {
  databaseId: number; eventType: string; outcomeCode: string; title: string; summary: string; severity: string; status: string;
  namespace: string; tags: string[]; createdAt: string; sharePolicy: string; requestedVisibility: string;
  effectiveVisibility: string; policyNotice: string; subject: { kind: string; key: string };
  relatedSubjects: Array<{ role: string; subject: { kind: string; key: string } }>;
} } };

export function shapeReport(data: ReportData) {
  const r = data.report.report;
  return {
    body: {
      ok: true, endpoint: 'report',
      query: { kind: r.subject.kind, key: r.subject.key, namespace: r.namespace },
      quota: { counted: false, reason: 'free_endpoint' },
      memory: { requested_visibility: r.requestedVisibility, effective_visibility: r.effectiveVisibility, policy_notice: r.policyNotice },
      report: {
        id: r.databaseId, event_type: r.eventType, outcome_code: r.outcomeCode, title: r.title, summary: r.summary,
        severity: r.severity, status: r.status, tags: r.tags, created_at: r.createdAt,
        subject: { kind: r.subject.kind, key: r.subject.key, share_policy: r.sharePolicy },
        related_subjects: r.relatedSubjects.map((l) => ({ kind: l.subject.kind, key: l.subject.key, role: l.role })),
      },
    },
    replayed: data.report.replayed,
  };
}
