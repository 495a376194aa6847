import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import type { App } from '../../src/app.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { importFeed } from '../../src/domain/feeds/store.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { saveFeedSchedule } from '../../src/domain/feeds/schedule.ts';

/** Shared by the tests of `db backup` / `db restore` and `db move`: the CLI, every table's rows, and a seed of every table. */
const run = promisify(execFile);
export const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');
export const MODELS = Object.values(Prisma.ModelName);

export async function cli(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Every row of every model's table, in a stable order, as JSON values. */
export async function readAll(prisma: PrismaClient): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const model of MODELS) {
    const rows = await prisma.$queryRawUnsafe<unknown[]>(`SELECT * FROM "${model}"`);
    out[model] = rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();
  }
  return out;
}

/** At least one row in every table, with the awkward values: arrays, JSON, NULLs, a leading U+FEFF, non-Latin text. */
export async function seedEveryTable(app: App): Promise<string> {
  const prisma = app.db.prisma;
  const key = await createApiKey(prisma, app.pepper, { workspace: 'backup-ws', name: 'ops key', tier: 'developer' });
  const ws = await prisma.workspace.findUniqueOrThrow({ where: { name: 'backup-ws' } });
  const account = await prisma.account.create({
    data: { workspaceId: ws.id, email: 'ops@example.com', passwordHash: 'scrypt$x', emailVerifiedAt: new Date() },
  });
  const subject = await prisma.subject.create({ data: { workspaceId: ws.id, kind: 'ip', key: '203.0.113.7' } });
  const other = await prisma.subject.create({ data: { workspaceId: ws.id, kind: 'email', key: 'a@example.org' } });
  const report = await prisma.report.create({
    data: {
      workspaceId: ws.id,
      subjectId: subject.id,
      eventType: 'login',
      outcomeCode: 'fraud_confirmed',
      severity: 'high',
      title: '\uFEFFtitle',
      summary: 'Zusammenfassung — 概要',
      details: '{"a":1}',
      tags: ['x', 'y z'],
      status: 'open',
      sharePolicy: 'private',
      namespace: 'default',
      requestedVisibility: 'private',
      effectiveVisibility: 'private',
      policyNotice: '',
    },
  });
  await prisma.reportLink.create({ data: { reportId: report.id, subjectId: other.id, role: 'email', position: 0 } });
  const rating = await prisma.rating.create({
    data: { workspaceId: ws.id, subjectId: subject.id, rating: -1, note: 'bad' },
  });
  await prisma.subjectMemory.create({
    data: {
      subjectId: subject.id,
      bad: 1,
      reports: 1,
      lastRatingId: rating.id,
      lastRating: -1,
      lastNote: 'bad',
      lastRatedAt: rating.createdAt,
      writtenXid: 2n ** 40n,
    },
  });
  await prisma.idempotencyRecord.create({
    data: {
      workspaceId: ws.id,
      key: 'k1',
      endpoint: 'rate',
      requestHash: 'h',
      status: 200,
      response: { ok: true, n: [1, 2] },
    },
  });
  await importFeed(prisma, {
    name: 'vendor',
    format: 'plain',
    source: 'inline',
    parsed: parseFeedText('10.0.0.0/8\n2001:db8::/32\n', 'plain'),
  });
  await saveFeedSchedule(prisma, {
    name: 'remote',
    url: 'https://feeds.example.net/list.txt?token=t',
    every: '1d',
    format: 'csv',
    column: 'ip',
    weight: 0.5,
  });
  const publication = await prisma.publication.create({
    data: {
      version: 1,
      status: 'complete',
      startedAt: new Date(),
      publishedAt: new Date(),
      entityCount: 1,
      stats: { s: 1 },
    },
  });
  await prisma.publishedSummary.create({
    data: {
      publicationId: publication.id,
      workspaceId: 0,
      code: 'asn',
      key: '64500',
      name: 'AS64500',
      score: 40,
      level: 'medium',
      counts: { bad: 1 },
      reporters: 1,
    },
  });
  await prisma.publicationImagePart.create({
    data: { publicationId: publication.id, part: 0, bytes: Uint8Array.from([0, 1, 254, 255]) },
  });
  await prisma.webSession.create({
    data: { id: 'sess-hash', accountId: account.id, csrfToken: 'csrf', expiresAt: new Date(Date.now() + 3600_000) },
  });
  await prisma.emailVerification.create({
    data: { id: 'verify-hash', email: 'new@example.com', expiresAt: new Date(Date.now() + 3600_000) },
  });
  const request = await prisma.subscriptionRequest.create({
    data: {
      workspaceId: ws.id,
      accountId: account.id,
      tier: 'developer',
      planId: 'P-1',
      orderCode: 'ord-1',
      providerId: 'I-1',
      approvalUrl: 'https://example.com/a',
      status: 'cancelled',
    },
  });
  await prisma.providerCancellation.create({
    data: { requestId: request.id, providerId: 'I-1', reason: 'superseded', status: 'cancelled', doneAt: new Date() },
  });
  await prisma.providerEvent.create({
    data: { id: 'WH-1', type: 'BILLING.SUBSCRIPTION.CANCELLED', outcome: 'applied' },
  });
  await prisma.mailOutbox.create({
    data: { to: 'ops@example.com', subject: 'hello', text: 'body', status: 'sent', sentAt: new Date() },
  });
  const rule = await prisma.overrideRule.create({
    data: {
      workspaceId: ws.id,
      targetKind: 'cidr',
      target: '203.0.113.0/24',
      action: 'adjust',
      points: -15,
      reason: 'office range — Büro',
      authorKind: 'api_key',
      authorId: 1,
      authorLabel: 'ops key',
      expiresAt: new Date(Date.now() + 86_400_000),
      writtenXid: 2n ** 40n,
    },
  });
  await prisma.overrideAudit.create({
    data: {
      workspaceId: ws.id,
      ruleId: rule.id,
      action: 'create',
      surface: 'rest',
      actorKind: 'api_key',
      actorId: 1,
      actorLabel: 'ops key',
      after: { target: rule.target, points: -15 },
    },
  });
  await prisma.watch.create({
    data: {
      workspaceId: ws.id,
      targetKind: 'subject',
      target: 'domain:büro.example',
      note: 'watch — Notiz',
      authorKind: 'api_key',
      authorId: 1,
      authorLabel: 'ops key',
      lastScore: 42,
      lastLevel: 'medium',
      lastPublicationVersion: 1,
      lastSpiking: true,
      spikeCheckedWindow: 2n ** 40n,
    },
  });
  const keyRow = await prisma.apiKey.findUniqueOrThrow({ where: { prefix: key.prefix } });
  await prisma.apiKeyCountry.create({ data: { apiKeyId: keyRow.id, country: 'NL' } });
  // delivered, so the running server's delivery loop leaves the rows as they are between the backup and the compare
  const endpoint = await prisma.webhookEndpoint.create({
    data: {
      workspaceId: ws.id,
      url: 'https://hooks.example.com/risk',
      eventTypes: ['watch.reported', 'endpoint.test'],
      description: 'SOC — Büro',
      secret: 'whsec_current',
      previousSecret: 'whsec_previous',
      previousSecretUntil: new Date(Date.now() + 3_600_000),
      failingSince: new Date(Date.now() - 60_000),
    },
  });
  const event = await prisma.webhookEvent.create({
    data: {
      publicId: 'evt_backup',
      workspaceId: ws.id,
      type: 'watch.reported',
      data: { subject: 'domain:exämple.org', n: [1, 2] },
    },
  });
  const delivery = await prisma.webhookDelivery.create({
    data: {
      eventId: event.id,
      endpointId: endpoint.id,
      workspaceId: ws.id,
      status: 'delivered',
      attempts: 2,
      deliveredAt: new Date(),
    },
  });
  await prisma.webhookAttempt.create({
    data: {
      deliveryId: delivery.id,
      workspaceId: ws.id,
      latencyMs: 120,
      httpStatus: 503,
      error: 'HTTP 503',
      responseExcerpt: 'später',
      manual: true,
    },
  });
  return key.secret;
}
