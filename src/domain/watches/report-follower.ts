import { isIP } from 'node:net';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/types.ts';
import { emitWebhookEvent } from '../webhooks/emit.ts';
import { reportedEvent, type SharedReport } from './events.ts';
import { WATCH_LIMITS } from './schemas.ts';
import { watchTargetOfSubject, type WatchTarget } from './target.ts';

type ReportRow = SharedReport & { id: number; workspaceId: number; writtenXid: bigint; kind: string; key: string };
type LinkRow = { reportId: number; role: string; kind: string; key: string };
type WatchRow = {
  id: number;
  workspaceId: number;
  targetKind: string;
  target: string;
  scoreThreshold: number | null;
  note: string;
};

/** The role of the subject a report is about, beside the roles of its linked subjects. */
export const PRIMARY_ROLE = 'subject';

/**
 * watch.reported: follows the reports from a persisted cursor and tells each OTHER workspace watching a subject a
 * community-visible report names (as its subject or a linked one). The report write path is untouched: every
 * report row carries its writing transaction's id (set by the database), and the follower reads in
 * (writtenXid, id) order up to the oldest transaction still running, so a report committed late is never
 * skipped (the rule the override cache follows its rules by). Each step is one transaction that locks the cursor
 * row (SKIP LOCKED: one process follows at a time), emits the events and advances the cursor: a report gives its
 * events exactly once. Reports whose effective visibility is not community (a non-shareable policy downgrades
 * them) are passed over: they never leave their workspace.
 * An IP a report names also reaches the cidr watches whose block holds it and, with the network data, the asn
 * watch of the AS announcing it (the watch's target is the block or the AS; the event names the IP).
 */
export async function followReports(
  prisma: PrismaClient,
  chunk: number = WATCH_LIMITS.reportChunk,
  network?: Pick<NetworkIndex, 'resolve'>,
): Promise<{ reports: number; events: number }> {
  const done = { reports: 0, events: 0 };
  for (;;) {
    const step = await prisma.$transaction(async (tx) => {
      const [cursor] = await tx.$queryRaw<Array<{ writtenXid: bigint; reportId: number }>>`
        SELECT "writtenXid", "reportId" FROM "WatchReportCursor" WHERE "id" = 1 FOR UPDATE SKIP LOCKED`;
      if (!cursor) return null; // another process is following now (or the row is missing: nothing to follow from)
      const [{ horizon }] = (await tx.$queryRaw<Array<{ horizon: bigint }>>`
        SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon`) as [{ horizon: bigint }];
      const reports = await tx.$queryRaw<ReportRow[]>`
        SELECT r."id", r."workspaceId", r."writtenXid", r."eventType", r."outcomeCode", r."severity", r."sharePolicy", r."createdAt", s."kind", s."key"
          FROM "Report" r JOIN "Subject" s ON s."id" = r."subjectId"
         WHERE (r."writtenXid", r."id") > (${cursor.writtenXid}::bigint, ${cursor.reportId}::int) AND r."writtenXid" < ${horizon}::bigint
           AND r."effectiveVisibility" = 'community'
         ORDER BY r."writtenXid", r."id" LIMIT ${chunk}`;
      const events = reports.length > 0 ? await emitForReports(tx, reports, network) : 0;
      const last = reports.at(-1);
      // A short page read everything settled below the horizon: the next step starts there.
      const next =
        reports.length === chunk && last
          ? { writtenXid: BigInt(last.writtenXid), reportId: last.id }
          : { writtenXid: BigInt(horizon), reportId: 0 };
      if (
        next.writtenXid > BigInt(cursor.writtenXid) ||
        (next.writtenXid === BigInt(cursor.writtenXid) && next.reportId > cursor.reportId)
      ) {
        await tx.$executeRaw`UPDATE "WatchReportCursor" SET "writtenXid" = ${next.writtenXid}::bigint, "reportId" = ${next.reportId}::int WHERE "id" = 1`;
      }
      return { reports: reports.length, events };
    });
    if (!step) return done;
    done.reports += step.reports;
    done.events += step.events;
    if (step.reports < chunk) return done;
  }
}

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** The AS key (`AS<n>`) announcing `ip`, when the network data says. */
function asOf(network: Pick<NetworkIndex, 'resolve'> | undefined, ip: string): string | null {
  if (!network) return null;
  try {
    return network.resolve(ip).dimensions.find((d) => d.code === 'asn')?.entity?.key ?? null;
  } catch {
    return null; // a key the network data cannot read is no IP it announces
  }
}

/** The watch targets a named subject reaches: its own, and for an IP its AS (when known). */
function targetsOf(s: { kind: string; key: string }, asn: Map<string, string | null>): WatchTarget[] {
  const own = watchTargetOfSubject(s.kind, s.key);
  const as = s.kind === 'ipaddress' ? asn.get(s.key) : null;
  return as ? [own, { kind: 'asn', key: as }] : [own];
}

async function emitForReports(
  tx: Tx,
  reports: ReportRow[],
  network: Pick<NetworkIndex, 'resolve'> | undefined,
): Promise<number> {
  const links = await tx.$queryRaw<LinkRow[]>`
    SELECT l."reportId", l."role", s."kind", s."key" FROM "ReportLink" l JOIN "Subject" s ON s."id" = l."subjectId"
     WHERE l."reportId" = ANY(${reports.map((r) => r.id)}::int[]) ORDER BY l."reportId", l."position"`;
  const named = new Map<number, LinkRow[]>(
    reports.map((r) => [r.id, [{ reportId: r.id, role: PRIMARY_ROLE, kind: r.kind, key: r.key }]]),
  );
  for (const l of links) named.get(l.reportId)!.push(l);

  const asn = new Map<string, string | null>();
  for (const subjects of named.values()) {
    for (const s of subjects) if (s.kind === 'ipaddress' && !asn.has(s.key)) asn.set(s.key, asOf(network, s.key));
  }
  const targets = new Map<string, { kind: string; key: string }>();
  for (const subjects of named.values()) {
    for (const s of subjects) for (const t of targetsOf(s, asn)) targets.set(`${t.kind}\u0000${t.key}`, t);
  }
  const list = [...targets.values()];
  const watches = await tx.$queryRaw<WatchRow[]>`
    SELECT w."id", w."workspaceId", w."targetKind", w."target", w."scoreThreshold", w."note"
      FROM "Watch" w JOIN unnest(${list.map((t) => t.kind)}::text[], ${list.map((t) => t.key)}::text[]) AS t(k, v)
        ON w."targetKind" = t.k AND w."target" = t.v
     ORDER BY w."id"`;
  const byTarget = new Map<string, WatchRow[]>();
  for (const w of watches) {
    const k = `${w.targetKind}\u0000${w.target}`;
    byTarget.set(k, [...(byTarget.get(k) ?? []), w]);
  }
  // cidr watches whose block holds a named IP (an exact /32 or /128 target was matched above too).
  const ips = [...asn.keys()].filter((ip) => isIP(ip) !== 0); // stored keys are canonical; never let one fail the cast
  const blocks =
    ips.length === 0
      ? []
      : await tx.$queryRaw<Array<WatchRow & { ip: string }>>`
    SELECT w."id", w."workspaceId", w."targetKind", w."target", w."scoreThreshold", w."note", t.ip
      FROM "Watch" w JOIN unnest(${ips}::text[]) AS t(ip) ON w."targetKind" = 'cidr' AND t.ip::inet <<= w."target"::cidr
     ORDER BY w."id"`;
  const inBlocks = new Map<string, WatchRow[]>();
  for (const { ip, ...w } of blocks) inBlocks.set(ip, [...(inBlocks.get(ip) ?? []), w]);

  let emitted = 0;
  const at = new Date();
  for (const report of reports) {
    const told = new Set<number>(); // one event per watch and report, even when it names the subject twice
    for (const s of named.get(report.id)!) {
      const reached = targetsOf(s, asn).flatMap((t) => byTarget.get(`${t.kind}\u0000${t.key}`) ?? []);
      if (s.kind === 'ipaddress') reached.push(...(inBlocks.get(s.key) ?? []));
      for (const w of reached) {
        if (w.workspaceId === report.workspaceId || told.has(w.id)) continue; // a workspace's own reports are not news to it
        told.add(w.id);
        if (await emitWebhookEvent(tx, { workspaceId: w.workspaceId, ...reportedEvent(w, s, report, at) })) emitted++;
      }
    }
  }
  return emitted;
}
