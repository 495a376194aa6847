import { reportInputSchema } from '../../domain/memory/schemas.ts';
import {
  EVENT_TYPE_CODES,
  OUTCOME_CODES,
  REPORT_STATUS_CODES,
  ROLE_CODES,
  SEVERITY_CODES,
  SHARE_POLICY_CODES,
  VISIBILITY_CODES,
} from '../../domain/memory/vocabulary.ts';
import { writeReport, type ReportRow } from '../../domain/memory/writes.ts';
import type { Written } from '../../domain/memory/idempotency.ts';
import { viewerOf } from '../http/request-context.ts';
import { dateTime, enumOf, freeQuota, object, str, subjectKind } from './schemas.ts';
import { FREE } from './examples.ts';
import { defineOperation } from './operation.ts';
import { from, same } from './wire.ts';

/** A write's answer: whether it was a replay, and the row stored (read again on a replay, which returned only its id). */
export type ReportResult = Written<ReportRow> & { row: ReportRow };

const reportResponse = object({
  ok: { const: true },
  endpoint: { const: 'report' },
  query: from(
    'row',
    object({
      kind: from('subject.kind', subjectKind),
      key: from('subject.key', { type: 'string', description: 'The key as stored (normalised by kind).' }),
      namespace: str,
    }),
  ),
  quota: same(freeQuota),
  memory: from(
    'row',
    object({
      requested_visibility: enumOf(VISIBILITY_CODES),
      effective_visibility: enumOf(VISIBILITY_CODES),
      policy_notice: { type: 'string', description: 'Why the effective visibility differs; empty when it does not.' },
    }),
  ),
  report: from(
    'row',
    object(
      {
        id: { type: 'integer', minimum: 1 },
        event_type: enumOf(EVENT_TYPE_CODES),
        outcome_code: enumOf(OUTCOME_CODES),
        title: str,
        summary: str,
        severity: enumOf(SEVERITY_CODES),
        status: enumOf(REPORT_STATUS_CODES),
        tags: { type: 'array', items: str },
        created_at: dateTime,
        subject: same(
          object({
            kind: from('subject.kind', subjectKind),
            key: from('subject.key', str),
            share_policy: from('sharePolicy', enumOf(SHARE_POLICY_CODES)),
          }),
        ),
        related_subjects: from('links', {
          type: 'array',
          items: object({
            kind: from('subject.kind', subjectKind),
            key: from('subject.key', str),
            role: enumOf(ROLE_CODES),
          }),
        }),
      },
      { description: 'The stored report.' },
    ),
  ),
});

const reportRequestExample = {
  kind: 'domain',
  key: 'Bücher.Example',
  title: 'Card testing',
  summary: 'Many small charges',
  outcome_code: 'fraud_watch',
  severity: 'high',
  tags: ['carding'],
  related_subjects: [{ kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' }],
};
const reportExample = {
  ok: true,
  endpoint: 'report',
  query: { kind: 'domain', key: 'xn--bcher-kva.example', namespace: '' },
  quota: FREE,
  memory: { requested_visibility: 'workspace', effective_visibility: 'workspace', policy_notice: '' },
  report: {
    id: 1,
    event_type: 'observation',
    outcome_code: 'fraud_watch',
    title: 'Card testing',
    summary: 'Many small charges',
    severity: 'high',
    status: '',
    tags: ['carding'],
    created_at: '2026-11-23T10:04:00.496Z',
    subject: { kind: 'domain', key: 'xn--bcher-kva.example', share_policy: 'clear_share' },
    related_subjects: [{ kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' }],
  },
};

/** POST /risk_api/report/, the GraphQL mutation `report` and the MCP tool report_subject: one outcome report (free). */
export const report = defineOperation({
  name: 'report',
  path: '/risk_api/report',
  input: reportInputSchema,
  resolve: async (input, ctx, idempotencyKey = ctx.idempotencyKey): Promise<ReportResult> => {
    const written = await writeReport(ctx.services, viewerOf(ctx), input, idempotencyKey);
    const row =
      written.row ??
      (await ctx.prisma.report.findUniqueOrThrow({
        where: { id: written.id },
        include: { subject: true, links: { orderBy: { position: 'asc' }, include: { subject: true } } },
      }));
    return { ...written, row: row as ReportRow };
  },
  output: reportResponse,
  metering: 'free',
  idempotent: { replayed: (w) => w.replayed },
  doc: {
    tag: 'Memory',
    operationId: 'report',
    summary: 'Record a typed outcome event about a subject (free)',
    description:
      'An outcome (fraud, chargeback, spam, legitimate, ...) about a subject of any kind, with related subjects and their roles, ' +
      'under a share policy and a visibility. Keys are normalised by kind. Never counted.',
    request: { schema: 'ReportRequest', example: reportRequestExample },
    response: { schema: 'ReportResponse', description: 'Stored.', example: reportExample },
    errors: ['idempotency_key_reused'],
  },
});
