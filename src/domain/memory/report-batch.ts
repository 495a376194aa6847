/**
 * Group commit for reports (group-commit.ts): concurrent `report` calls without an
 * Idempotency-Key are written by ONE statement per batch, reports of any workspaces and keys
 * together. A report with a key is written by the same statement, alone, inside the transaction
 * that also stores its idempotency record (writes.ts).
 */
import { Prisma, type PrismaClient, type Report, type ReportLink } from '../../generated/prisma/client.ts';
import { GroupCommit, type BatchStatement } from './group-commit.ts';
import { ownItemWeight, setsFloor } from '../scoring/own-verdict.ts';
import {
  addToMemory,
  ownVerdictAdded,
  outcomesAdded,
  memoryFromJson,
  type MemoryJson,
  type SubjectWithMemory,
} from './subject-memory.ts';

/** A validated, normalised report (see schemas.ts), as `report` writes it. */
export type ReportWrite = {
  kind: string;
  key: string;
  title: string;
  summary: string;
  details: string;
  outcomeCode: string;
  severity: string;
  tags: string[];
  relatedSubjects: Array<{ kind: string; key: string; role: string }>;
  sharePolicy: string;
  namespace: string;
  eventType: string;
  status: string;
  requestedVisibility: string;
  effectiveVisibility: string;
  policyNotice: string;
};
/** A report with the workspace and API key it is written for. */
export type NewReport = ReportWrite & { workspaceId: number; apiKeyId: number };
/**
 * A stored report with its subject and links, as the write returns it (so answering needs no second read);
 * each subject with its memory after the write.
 */
export type ReportRow = Report & {
  subject: SubjectWithMemory;
  links: Array<ReportLink & { subject: SubjectWithMemory }>;
};

/** What the statement returns per report: its id and time, and the node of each subject it names (main first, then related in order). */
type Stored = {
  ord: number;
  id: number;
  createdAt: Date;
  subjects: Array<{ id: number; createdAt: string; memory: MemoryJson }>;
};

/** Per subject: the reports of this statement naming it, each once however many times it names it. */
const REPORTS_ADDED = Prisma.sql`
  SELECT about.subject_id, 0 AS good, 0 AS neutral, 0 AS bad, count(*) AS reports,
         NULL::int AS last_id, NULL::int AS last_rating, NULL::text AS last_note, NULL::timestamptz AS last_at,
         ${ownVerdictAdded(Prisma.sql`r.own_weight`, Prisma.sql`reports."createdAt"`, Prisma.sql`r.own_floor`)},
         ${outcomesAdded(Prisma.sql`r.outcome_code`)}
  FROM (SELECT DISTINCT s.id AS subject_id, i.ord FROM ref_input i JOIN subjects s ON s.ws = i.ws AND s.kind = i.kind AND s.key = i.key) about
  JOIN report_input r ON r.ord = about.ord JOIN reports ON reports.id = r.id
  GROUP BY about.subject_id`;

/** A report's own-verdict weight (scoring/own-verdict.ts), sent with it so the statement only sums. */
const ownWeight = (r: NewReport) =>
  ownItemWeight({ type: 'report', outcomeCode: r.outcomeCode, severity: r.severity, at: new Date(0), reporter: '' });

/** Every subject a batch names, report after report: the main subject (position -1), then the related ones in request order. */
function referencesOf(inputs: readonly NewReport[]) {
  return inputs.flatMap((r, ord) => [
    { ord, ws: r.workspaceId, kind: r.kind, key: r.key, role: '', position: -1 },
    ...r.relatedSubjects.map((s, position) => ({
      ord,
      ws: r.workspaceId,
      kind: s.kind,
      key: s.key,
      role: s.role,
      position,
    })),
  ]);
}

/**
 * One statement for many reports (data-modifying CTEs), atomic by itself. Inputs travel as
 * parallel arrays keyed by their ordinal in the batch (`ord`): the reports (with their main
 * subject), every subject they name (main one included: it is numbered and answered like the
 * others) and their tags (a text[] per report, rebuilt in tag order). Each report's id is drawn
 * up front for its ordinal, so its links and its answer join by ordinal, never by the order
 * RETURNING gives. Every subject named is added to its memory (subject-memory.ts).
 */
async function storeReports(prisma: Pick<PrismaClient, '$queryRaw'>, inputs: readonly NewReport[]): Promise<Stored[]> {
  const col = <T>(f: (r: NewReport, ord: number) => T): T[] => inputs.map((r, ord) => f(r, ord));
  const refs = referencesOf(inputs);
  const ref = <T>(f: (r: (typeof refs)[number]) => T): T[] => refs.map(f);
  const tags = inputs.flatMap((r, ord) => r.tags.map((tag, index) => ({ ord, index, tag })));
  return prisma.$queryRaw<Stored[]>`-- prepared
    WITH
    -- Each report's id is drawn here, in input order: PostgreSQL computes output expressions such
    -- as nextval after ORDER BY (documented under SELECT), here and in numbered below.
    report_input AS (
      SELECT *, nextval(pg_get_serial_sequence('"Report"', 'id')) AS id
      FROM unnest(${col((_, ord) => ord)}::int[], ${col((r) => r.workspaceId)}::int[], ${col((r) => r.kind)}::text[], ${col((r) => r.key)}::text[],
        ${col((r) => r.apiKeyId)}::int[], ${col((r) => r.eventType)}::text[], ${col((r) => r.outcomeCode)}::text[], ${col((r) => r.severity)}::text[],
        ${col((r) => r.title)}::text[], ${col((r) => r.summary)}::text[], ${col((r) => r.details)}::text[],
        ${col((r) => r.status)}::text[], ${col((r) => r.sharePolicy)}::text[], ${col((r) => r.namespace)}::text[],
        ${col((r) => r.requestedVisibility)}::text[], ${col((r) => r.effectiveVisibility)}::text[], ${col((r) => r.policyNotice)}::text[],
        ${col(ownWeight)}::float8[], ${col((r) => setsFloor(r.outcomeCode, r.severity))}::bool[])
        AS t(ord, ws, kind, key, api_key, event_type, outcome_code, severity, title, summary, details, status, share_policy, namespace,
             requested_visibility, effective_visibility, policy_notice, own_weight, own_floor)
      ORDER BY ord),
    ref_input AS (
      SELECT * FROM unnest(${ref((r) => r.ord)}::int[], ${ref((r) => r.ws)}::int[], ${ref((r) => r.kind)}::text[],
        ${ref((r) => r.key)}::text[], ${ref((r) => r.role)}::text[], ${ref((r) => r.position)}::int[])
        WITH ORDINALITY AS t(ord, ws, kind, key, role, position, seq)),
    tag_input AS (
      SELECT * FROM unnest(${tags.map((t) => t.ord)}::int[], ${tags.map((t) => t.index)}::int[], ${tags.map((t) => t.tag)}::text[])
        AS t(ord, tag_index, tag)),
    -- One row per distinct subject (ON CONFLICT may not touch a row twice), its id drawn where the
    -- batch first names it (report after report, main subject first), so new subjects are numbered
    -- in request order...
    numbered AS (
      SELECT ws, kind, key, nextval(pg_get_serial_sequence('"Subject"', 'id')) AS id
      FROM ref_input GROUP BY ws, kind, key ORDER BY min(seq)),
    -- ...but rows are inserted (and so locked) in ("workspaceId", kind, key) order: every writer takes
    -- the locks of shared subjects in the same order, so two statements naming the same subjects in
    -- different orders wait for each other instead of deadlocking (PostgreSQL aborted one with 40P01).
    subjects AS (
      INSERT INTO "Subject" ("id", "workspaceId", "kind", "key")
      SELECT id, ws, kind, key FROM numbered ORDER BY ws, kind, key
      ON CONFLICT ("workspaceId", "kind", "key") DO UPDATE SET "kind" = EXCLUDED."kind"
      RETURNING id, "workspaceId" AS ws, kind, key, "createdAt"),
    reports AS (
      INSERT INTO "Report" ("id", "workspaceId", "subjectId", "apiKeyId", "eventType", "outcomeCode", "severity", "title", "summary",
        "details", "tags", "status", "sharePolicy", "namespace", "requestedVisibility", "effectiveVisibility", "policyNotice")
      SELECT r.id, r.ws, s.id, r.api_key, r.event_type, r.outcome_code, r.severity, r.title, r.summary,
        r.details, coalesce(t.tags, '{}'), r.status, r.share_policy, r.namespace, r.requested_visibility, r.effective_visibility, r.policy_notice
      FROM report_input r
      JOIN subjects s ON s.ws = r.ws AND s.kind = r.kind AND s.key = r.key
      LEFT JOIN (SELECT ord, array_agg(tag ORDER BY tag_index) AS tags FROM tag_input GROUP BY ord) t ON t.ord = r.ord
      RETURNING id, "createdAt"),
    links AS (
      INSERT INTO "ReportLink" ("reportId", "subjectId", "role", "position")
      SELECT r.id, s.id, i.role, i.position
      FROM ref_input i
      JOIN report_input r ON r.ord = i.ord
      JOIN subjects s ON s.ws = i.ws AND s.kind = i.kind AND s.key = i.key
      WHERE i.position >= 0),
    memory AS (${addToMemory(REPORTS_ADDED)})
    SELECT r.ord, reports.id, reports."createdAt",
      json_agg(json_build_object('id', s.id, 'createdAt', s."createdAt", 'memory', row_to_json(m)) ORDER BY i.position) AS subjects
    FROM reports
    JOIN report_input r ON r.id = reports.id
    JOIN ref_input i ON i.ord = r.ord
    JOIN subjects s ON s.ws = i.ws AND s.kind = i.kind AND s.key = i.key
    JOIN memory m ON m."subjectId" = s.id
    GROUP BY r.ord, reports.id, reports."createdAt"`;
}

/** Each report as stored, rebuilt from its input and what the statement returned for its ordinal. */
function answersFor(inputs: readonly NewReport[], stored: readonly Stored[]): ReportRow[] {
  const byOrd = new Map(stored.map((s) => [s.ord, s]));
  return inputs.map((input, ord) => {
    const written = byOrd.get(ord);
    if (!written || written.subjects.length !== 1 + input.relatedSubjects.length) {
      throw new Error(`report batch: no stored report for input ${ord} of ${inputs.length}`);
    }
    const subjectAt = (i: number, kind: string, key: string): SubjectWithMemory => {
      const s = written.subjects[i]!;
      return {
        id: s.id,
        workspaceId: input.workspaceId,
        kind,
        key,
        createdAt: new Date(s.createdAt),
        memory: memoryFromJson(s.memory),
      };
    };
    const subject = subjectAt(0, input.kind, input.key);
    return {
      id: written.id,
      workspaceId: input.workspaceId,
      subjectId: subject.id,
      apiKeyId: input.apiKeyId,
      eventType: input.eventType,
      outcomeCode: input.outcomeCode,
      severity: input.severity,
      title: input.title,
      summary: input.summary,
      details: input.details,
      tags: input.tags,
      status: input.status,
      sharePolicy: input.sharePolicy,
      namespace: input.namespace,
      requestedVisibility: input.requestedVisibility,
      effectiveVisibility: input.effectiveVisibility,
      policyNotice: input.policyNotice,
      createdAt: new Date(written.createdAt),
      subject,
      links: input.relatedSubjects.map((r, position) => {
        const linked = subjectAt(1 + position, r.kind, r.key);
        return { reportId: written.id, subjectId: linked.id, role: r.role, position, subject: linked };
      }),
    };
  });
}

/** The report statement on a client (or a transaction): one statement, one row per input. */
export function reportStatement(
  prisma: Pick<PrismaClient, '$queryRaw'>,
): BatchStatement<NewReport, Stored[], ReportRow> {
  return { write: (inputs) => storeReports(prisma, inputs), answers: answersFor };
}

export class ReportBatcher extends GroupCommit<NewReport, Stored[], ReportRow> {
  constructor(
    prisma: Pick<PrismaClient, '$queryRaw'>,
    maxInFlight?: number,
    maxBatch?: number,
    onBatch?: (size: number) => void,
  ) {
    super(reportStatement(prisma), maxInFlight, maxBatch, onBatch);
  }
}
