/**
 * Shared seeding for the publishing and feed-store tests (not a test file itself). A database
 * per call: a PGlite data directory, or a fresh PostgreSQL database when DATABASE_URL is set.
 */
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { freshEnvironment } from './backend.ts';

export type TestDatabase = { db: Database; prisma: PrismaClient; databaseUrl?: string; close(): Promise<void> };

export async function openTestDatabase(): Promise<TestDatabase> {
  // A copy of the migrated template (test/helpers/database-template.ts): an in-memory PGlite would run initdb and
  // every migration again, the larger part of these files' time.
  const env = await freshEnvironment();
  const db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
  await db.migrate();
  return {
    db,
    prisma: db.prisma,
    ...(env.env.DATABASE_URL ? { databaseUrl: env.env.DATABASE_URL } : {}),
    close: async () => {
      await db.close();
      await env.cleanup();
    },
  };
}

export async function seedWorkspace(prisma: PrismaClient, name: string): Promise<number> {
  return (await prisma.workspace.create({ data: { name }, select: { id: true } })).id;
}

async function subjectId(prisma: PrismaClient, workspaceId: number, kind: string, key: string): Promise<number> {
  const s = await prisma.subject.upsert({
    where: { workspaceId_kind_key: { workspaceId, kind, key } },
    create: { workspaceId, kind, key },
    update: {},
    select: { id: true },
  });
  return s.id;
}

export type SeedReport = {
  workspaceId: number;
  kind: string;
  key: string;
  visibility: 'workspace' | 'community';
  outcomeCode?: string;
  severity?: string;
  createdAt?: Date;
  related?: Array<{ kind: string; key: string; role: string }>;
};

export async function seedReport(prisma: PrismaClient, r: SeedReport): Promise<number> {
  const report = await prisma.report.create({
    data: {
      workspaceId: r.workspaceId,
      subjectId: await subjectId(prisma, r.workspaceId, r.kind, r.key),
      eventType: 'observation',
      outcomeCode: r.outcomeCode ?? 'fraud_confirmed',
      severity: r.severity ?? 'high',
      title: 't',
      summary: 's',
      details: 'd',
      tags: [],
      status: 'open',
      sharePolicy: r.visibility === 'community' ? 'community' : 'private',
      namespace: '',
      requestedVisibility: r.visibility,
      effectiveVisibility: r.visibility,
      policyNotice: '',
      ...(r.createdAt ? { createdAt: r.createdAt } : {}),
    },
    select: { id: true },
  });
  let position = 0;
  for (const link of r.related ?? []) {
    await prisma.reportLink.create({
      data: {
        reportId: report.id,
        subjectId: await subjectId(prisma, r.workspaceId, link.kind, link.key),
        role: link.role,
        position: position++,
      },
    });
  }
  return report.id;
}

export async function seedRating(
  prisma: PrismaClient,
  workspaceId: number,
  ip: string,
  rating: -1 | 0 | 1,
  createdAt?: Date,
): Promise<void> {
  await prisma.rating.create({
    data: {
      workspaceId,
      subjectId: await subjectId(prisma, workspaceId, 'ipaddress', ip),
      rating,
      note: '',
      ...(createdAt ? { createdAt } : {}),
    },
  });
}
