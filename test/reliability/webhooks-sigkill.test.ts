import { afterAll, describe, expect, it } from 'vitest';
import { backendName, freshEnvironment, type TestEnv } from '../helpers/backend.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { emitWebhookEvent } from '../../src/domain/webhooks/emit.ts';
import { newSecret } from '../../src/domain/webhooks/signature.ts';
import { LEASE_MS } from '../../src/domain/webhooks/deliverer.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServerProcess, type ServerProcess } from './faults-helpers.ts';

/**
 * At-least-once delivery (docs/webhooks.md, "Retries, order and duplicates"): the server process is killed with
 * SIGKILL while the receiver holds the first of three deliveries of one endpoint; the receiver then answers it (it
 * got the event; the sender is gone). A new process on the same data sends it again once the dead process's lease
 * expires, then the other two, in order. Nothing is lost; the one duplicate is the event in flight at the kill,
 * the documented bound (one per endpoint per killed process).
 */
describe(`webhooks: server killed with SIGKILL during a delivery, restarted on the same data (${backendName})`, () => {
  let env: TestEnv;
  let rx: Receiver;
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await rx?.close();
    await env?.cleanup();
  });

  it('delivers every event after the restart, duplicating only the one in flight', async () => {
    rx = await startReceiver();
    env = await freshEnvironment({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    const setup = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    await setup.migrate();
    const secret = newSecret();
    rx.secrets.add(secret);
    const workspace = await setup.prisma.workspace.create({ data: { name: 'hooks-sigkill' } });
    const endpoint = await setup.prisma.webhookEndpoint.create({
      data: { workspaceId: workspace.id, url: rx.url, eventTypes: ['watch.reported'], secret },
    });
    const ids: string[] = [];
    for (let n = 1; n <= 3; n++)
      ids.push(
        (await setup.prisma.$transaction((tx) =>
          emitWebhookEvent(tx, { workspaceId: workspace.id, type: 'watch.reported', data: { n } }),
        ))!,
      );
    await setup.close(); // the embedded database has one owner at a time

    rx.mode = { kind: 'hold' };
    const first = await startServerProcess(env.env);
    servers.push(first);
    const arrived = await eventually(async () => rx.received.length >= 1);
    expect(arrived, first.logs.slice(-10).join('\n')).toBe(true);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    rx.mode = { kind: 'ok' };
    rx.release(); // the receiver answers the held request: it has the event, the sender never learns so

    const second = await startServerProcess(env.env);
    servers.push(second);
    // the dead process's lease (LEASE_MS) runs out before the second one may send the head delivery again
    const done = await eventually(
      async () => new Set(rx.received.map((r) => r.json.id)).size === 3,
      LEASE_MS + 60_000,
      200,
    );
    expect(done, second.logs.slice(-10).join('\n')).toBe(true);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const got = rx.received.map((r) => r.json.id as string);
    expect(got).toEqual([ids[0], ids[0], ids[1], ids[2]]); // the one in flight twice, then the rest once each, in order
    expect(rx.received.every((r) => r.verifiedWith.length === 1)).toBe(true);

    const check = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    try {
      const rows = await check.prisma.webhookDelivery.findMany({
        where: { endpointId: endpoint.id },
        orderBy: { id: 'asc' },
        include: { attemptsLog: true },
      });
      expect(rows.map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
      // the killed attempt left no row (it is recorded when it ends); the one after the restart did
      expect(rows.map((d) => d.attemptsLog.map((a) => a.httpStatus))).toEqual([[200], [200], [200]]);
    } finally {
      await check.close();
    }
  }, 600_000);
});
