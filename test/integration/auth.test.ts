import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

const RATE = { ip: '203.0.113.9', rating: -1 };

describe(`API key authentication (${backendName})`, () => {
  let s: TestServer;
  let key: { prefix: string; secret: string };
  beforeAll(async () => {
    s = await startTestServer();
    key = await s.createKey('auth-ws');
  });
  afterAll(() => s?.close());

  it('rejects a call without a key with 401 missing_api_key naming both headers', async () => {
    const r = await s.post('/risk_api/rate/', RATE);
    expect(r.status, JSON.stringify(r.body)).toBe(401);
    expect(r.body).toMatchObject({ ok: false, error: 'missing_api_key' });
    expect(r.body.message).toContain('X-API-Key');
    expect(r.body.message).toContain('Bearer');
  });

  it('accepts the key in X-API-Key and as a Bearer token', async () => {
    const a = await s.post('/risk_api/rate/', RATE, { 'x-api-key': key.secret });
    const b = await s.post('/risk_api/rate/', RATE, { authorization: `Bearer ${key.secret}` });
    expect([a.status, b.status], JSON.stringify([a.body, b.body])).toEqual([201, 201]);
  });

  it('accepts both headers when they carry the same key', async () => {
    const r = await s.post('/risk_api/rate/', RATE, { 'x-api-key': key.secret, authorization: `Bearer ${key.secret}` });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('rejects two different keys with 400 conflicting_api_keys', async () => {
    const other = await s.createKey('auth-ws', { name: 'second' });
    const r = await s.post('/risk_api/rate/', RATE, {
      'x-api-key': key.secret,
      authorization: `Bearer ${other.secret}`,
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('conflicting_api_keys');
  });

  it.each([
    ['malformed', 'not-a-key'],
    ['unknown prefix', `rk_AAAAAAAA_${'a'.repeat(40)}`],
  ])('rejects a %s key with 401 invalid_api_key', async (_label, bad) => {
    const r = await s.post('/risk_api/rate/', RATE, { 'x-api-key': bad });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ ok: false, error: 'invalid_api_key' });
  });

  it('rejects a known prefix with a wrong secret', async () => {
    const r = await s.post('/risk_api/rate/', RATE, { 'x-api-key': `${key.prefix}_${'b'.repeat(40)}` });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_api_key');
  });

  it('rejects an Authorization header that is not a Bearer token', async () => {
    const r = await s.post('/risk_api/rate/', RATE, {
      authorization: `Basic ${Buffer.from('a:b').toString('base64')}`,
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_api_key');
  });

  it('stops accepting a revoked key once the cache entry expires (bound: KEY_CACHE_TTL_MS)', async () => {
    const doomed = await s.createKey('auth-ws', { name: 'doomed' });
    expect((await s.post('/risk_api/rate/', RATE, { 'x-api-key': doomed.secret })).status).toBe(201);
    await s.app.db.prisma.apiKey.update({ where: { prefix: doomed.prefix }, data: { revokedAt: new Date() } });
    // Simulate the TTL passing instead of sleeping: this process re-reads the row.
    s.app.verifier.invalidate(doomed.prefix);
    const r = await s.post('/risk_api/rate/', RATE, { 'x-api-key': doomed.secret });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_api_key');
  });

  it('never writes a key secret into the logs', async () => {
    await s.post('/risk_api/rate/', RATE, { 'x-api-key': key.secret });
    await s.post('/risk_api/rate/', RATE, { 'x-api-key': `${key.prefix}_${'c'.repeat(40)}` });
    const secretPart = key.secret.slice(key.prefix.length + 1);
    expect(s.logs.length).toBeGreaterThan(0);
    expect(s.logs.filter((l) => l.includes(secretPart))).toEqual([]);
  });
});
