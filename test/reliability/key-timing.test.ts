import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { pgliteRunner } from '../../src/platform/db/sql.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { KeyVerifier } from '../../src/domain/access/verifier.ts';
import { createApiKey, revokeApiKey } from '../../src/domain/access/keys.ts';
import { backendName, freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * API key verification must not tell a caller which key prefixes exist. Rather than timing it
 * (a flaky bound on a shared machine; bench/key-timing.ts measures it), this proves it: the
 * verifier's every operation that costs time — each SQL statement sent, each HMAC, each
 * constant-time comparison and the sizes it compares — is recorded, and the record must be the
 * same for an unknown prefix as for a known prefix with a wrong secret (cold and cached).
 */
const trace: string[] = [];
let tracing = false;
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const createHmac = ((algorithm: string, key: never) => {
    const h = real.createHmac(algorithm, key);
    if (!tracing) return h;
    trace.push(`hmac ${algorithm}`);
    const update = h.update.bind(h);
    h.update = ((data: string | Buffer) => {
      trace.push(`hmac.update ${Buffer.byteLength(data)} bytes`);
      return update(data as never);
    }) as never;
    const digest = h.digest.bind(h);
    h.digest = ((enc?: never) => {
      trace.push('hmac.digest');
      return digest(enc as never);
    }) as never;
    return h;
  }) as typeof real.createHmac;
  const timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    if (tracing) trace.push(`timingSafeEqual ${a.byteLength}/${b.byteLength} bytes`);
    return real.timingSafeEqual(a, b);
  }) as typeof real.timingSafeEqual;
  return { ...real, default: { ...real, createHmac, timingSafeEqual }, createHmac, timingSafeEqual };
});

const PEPPER = 'timing-test-pepper-'.padEnd(40, 'x');

describe(`API key verification costs the same for an unknown prefix as for a wrong secret (${backendName})`, () => {
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  let env: TestEnv | null = null;
  let known: { prefix: string; secret: string };
  let revoked: { prefix: string; secret: string };

  beforeAll(async () => {
    if (usingPostgres) {
      env = await freshEnvironment();
      const db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
      await db.migrate();
      await db.close();
      prisma = new PrismaClient({
        adapter: new PrismaPg({ connectionString: env.env.DATABASE_URL! }),
        log: [{ emit: 'event', level: 'query' }],
      });
      close = async () => {
        await prisma.$disconnect();
        await env!.cleanup();
      };
    } else {
      const pglite = new PGlite();
      await pglite.waitReady;
      await migrate(pgliteRunner(pglite));
      prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite), log: [{ emit: 'event', level: 'query' }] });
      close = async () => {
        await prisma.$disconnect();
        await pglite.close();
      };
    }
    // Every statement the client sends, by its text (parameters such as the prefix differ by design).
    (prisma as unknown as { $on(e: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) => {
      if (tracing) trace.push(`sql ${e.query.replace(/\s+/g, ' ').trim()}`);
    });
    known = await createApiKey(prisma, PEPPER, { workspace: 'timing', name: 'known' });
    revoked = await createApiKey(prisma, PEPPER, { workspace: 'timing', name: 'revoked' });
    await revokeApiKey(prisma, revoked.prefix);
  });
  afterAll(() => close?.());

  /** Same shape as a real key, prefix that was never issued. */
  const unknownPrefixKey = () => `rk_Zz${known.prefix.slice(5)}_${known.secret.slice(-40)}`;
  const wrongSecretKey = () => `${known.prefix}_${'A'.repeat(40)}`;

  async function traced(verifier: KeyVerifier, key: string): Promise<{ ops: string[]; outcome: string }> {
    trace.length = 0;
    tracing = true;
    let outcome: string;
    try {
      const viewer = await verifier.verify(key);
      outcome = `ok ${viewer.keyPrefix}`;
    } catch (e) {
      outcome = (e as { code?: string }).code ?? String(e);
    } finally {
      tracing = false;
    }
    return { ops: [...trace], outcome };
  }

  it('sends the same statements and does the same HMAC and constant-time comparison on a cold cache', async () => {
    const cases = {
      unknownPrefix: unknownPrefixKey(),
      wrongSecret: wrongSecretKey(),
      revoked: revoked.secret,
      correct: known.secret,
    };
    const seen: Record<string, { ops: string[]; outcome: string }> = {};
    for (const [name, key] of Object.entries(cases)) {
      seen[name] = await traced(new KeyVerifier(prisma, PEPPER, 60_000), key); // a fresh verifier: nothing cached
    }
    expect(seen.unknownPrefix!.outcome).toBe('invalid_api_key');
    expect(seen.wrongSecret!.outcome).toBe('invalid_api_key');
    expect(seen.revoked!.outcome).toBe('invalid_api_key');
    expect(seen.correct!.outcome).toBe(`ok ${known.prefix}`);
    const ops = seen.unknownPrefix!.ops;
    // One lookup statement, one HMAC over the whole 52-character key, one comparison of two 32-byte digests.
    expect(
      ops.filter((o) => o.startsWith('sql ')),
      ops.join('\n'),
    ).toHaveLength(1);
    expect(
      ops.filter((o) => !o.startsWith('sql ')),
      ops.join('\n'),
    ).toEqual(['hmac sha256', 'hmac.update 52 bytes', 'hmac.digest', 'timingSafeEqual 32/32 bytes']);
    for (const name of ['wrongSecret', 'revoked', 'correct']) {
      expect(seen[name]!.ops, `${name} differs from unknownPrefix`).toEqual(ops);
    }
  });

  it('does the same with the key row cached (hit and miss are both cached)', async () => {
    const verifier = new KeyVerifier(prisma, PEPPER, 60_000);
    const keys = [unknownPrefixKey(), wrongSecretKey(), revoked.secret, known.secret];
    for (const key of keys) await traced(verifier, key); // warm: the unknown prefix is cached as "no such key"
    const warm = [];
    for (const key of keys) warm.push(await traced(verifier, key));
    expect(warm.map((w) => w.outcome)).toEqual([
      'invalid_api_key',
      'invalid_api_key',
      'invalid_api_key',
      `ok ${known.prefix}`,
    ]);
    for (const w of warm) {
      expect(w.ops).toEqual(['hmac sha256', 'hmac.update 52 bytes', 'hmac.digest', 'timingSafeEqual 32/32 bytes']);
    }
  });

  it('refuses a malformed key before any lookup (its shape is public, it reveals nothing stored)', async () => {
    const r = await traced(new KeyVerifier(prisma, PEPPER, 60_000), `${known.prefix}_short`);
    expect(r).toEqual({ ops: [], outcome: 'invalid_api_key' });
  });
});

describe(`an unknown prefix and a wrong secret get the same answer over HTTP (${backendName})`, () => {
  let s: TestServer;
  let key: { prefix: string; secret: string };
  beforeAll(async () => {
    s = await startTestServer();
    key = await s.createKey('timing-http', { tier: 'developer' });
  });
  afterAll(() => s?.close());

  /** Status, header names and body, without the per-request id. */
  async function answer(path: string, init: RequestInit) {
    const res = await fetch(s.url + path, init);
    const body = (await res.text()).replace(/"request_id":"[^"]+"/, '');
    const headers = [...res.headers.keys()].filter((h) => h !== 'date').sort();
    return { status: res.status, headers, body };
  }

  it('answers both byte for byte alike on REST and GraphQL', async () => {
    const unknown = `rk_Zz${key.prefix.slice(5)}_${key.secret.slice(-40)}`;
    const wrong = `${key.prefix}_${'A'.repeat(40)}`;
    const calls: Array<[string, (k: string) => RequestInit]> = [
      [
        '/risk_api/score/',
        (k) => ({
          method: 'POST',
          headers: { 'x-api-key': k, 'content-type': 'application/json' },
          body: '{"ip":"8.8.8.8"}',
        }),
      ],
      [
        '/risk_api/rate/',
        (k) => ({
          method: 'POST',
          headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
          body: '{"ip":"8.8.8.8","rating":1}',
        }),
      ],
      ['/risk_api/export/', (k) => ({ method: 'GET', headers: { 'x-api-key': k } })],
      [
        '/graphql',
        (k) => ({
          method: 'POST',
          headers: { 'x-api-key': k, 'content-type': 'application/json' },
          body: '{"query":"{ viewer { workspace { name } } }"}',
        }),
      ],
    ];
    for (const [path, init] of calls) {
      const a = await answer(path, init(unknown));
      const b = await answer(path, init(wrong));
      expect(a.status, `${path}: ${a.body}`).toBe(401);
      expect(b, path).toEqual(a);
      expect(a.body).toContain('invalid_api_key');
    }
  });
});
