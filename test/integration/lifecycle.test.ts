import { describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { startTestServer } from '../helpers/server.ts';
import { backendName, freshEnvironment } from '../helpers/backend.ts';
import { openDatabase } from '../../src/platform/db/database.ts';

describe(`lifecycle (${backendName})`, () => {
  it('lets an in-flight request finish on shutdown and refuses new connections', async () => {
    const s = await startTestServer();
    const { secret } = await s.createKey('life-ws');
    const url = new URL(`${s.url}/risk_api/rate/`);
    const body = JSON.stringify({ ip: '192.0.2.10', rating: 1 });
    // Send headers now and the body only after shutdown has begun. Each step waits for the server to have done the
    // one before (no sleep: on a busy machine a fixed pause let the shutdown start before the headers had arrived).
    const received = new Promise<void>((resolve) => s.app.server.once('request', () => resolve()));
    let req!: ReturnType<typeof request>;
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-api-key': secret,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    await received;
    const closing = s.close();
    while (s.app.server.listening) await new Promise((r) => setImmediate(r)); // the drain has stopped accepting
    req.end(body);
    const done = await inFlight;
    expect(done.status, done.text).toBe(201);
    await closing;
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  });

  it('applies migrations once even when several processes start together', async () => {
    const env = await freshEnvironment({}, { empty: true });
    const dbs = await Promise.all(
      [0, 1].map(() =>
        openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir, inMemory: !env.env.DATABASE_URL }),
      ),
    );
    try {
      const results = await Promise.all(dbs.map((db) => db.migrate()));
      if (env.env.DATABASE_URL) {
        // One shared database: exactly one process applied each migration.
        expect(results.map((r) => r.applied.length).sort()).toEqual([
          0,
          results[0]!.applied.length + results[1]!.applied.length,
        ]);
      }
      const again = await dbs[0]!.migrate();
      expect(again.applied).toEqual([]);
      expect(await dbs[0]!.prisma.tier.count()).toBeGreaterThanOrEqual(4);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await env.cleanup();
    }
  });
});
