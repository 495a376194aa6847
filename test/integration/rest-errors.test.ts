import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

describe(`REST facade request handling (${backendName})`, () => {
  let s: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    s = await startTestServer();
    auth = { 'x-api-key': (await s.createKey('errors-ws')).secret };
  });
  afterAll(() => s?.close());

  const counts = async () => ({
    ratings: await s.app.db.prisma.rating.count(),
    reports: await s.app.db.prisma.report.count(),
    subjects: await s.app.db.prisma.subject.count(),
  });

  it('answers malformed JSON with 400 invalid_json and writes nothing', async () => {
    const before = await counts();
    const r = await s.post('/risk_api/rate/', '{"ip": "1.2.3.4", ', auth);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ ok: false, error: 'invalid_json' });
    expect(await counts()).toEqual(before);
  });

  it('answers a JSON array body with 400 invalid_request', async () => {
    const r = await s.post('/risk_api/rate/', '[1,2]', auth);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
  });

  it('answers a wrong content type with 415', async () => {
    const r = await s.post('/risk_api/rate/', 'ip=1.2.3.4', {
      ...auth,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ ok: false, error: 'unsupported_media_type' });
  });

  it('answers a body over the size limit with 413', async () => {
    const r = await s.post(
      '/risk_api/report/',
      { kind: 'domain', key: 'example.com', outcome_code: 'spam', details: 'x'.repeat(70_000) },
      auth,
    );
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ ok: false, error: 'payload_too_large' });
  });

  it('names every offending field in details', async () => {
    const before = await counts();
    const r = await s.post(
      '/risk_api/report/',
      {
        kind: 'planet',
        key: 42,
        outcome_code: 'fraud_watch',
        severity: 'apocalyptic',
        tags: 'x',
        related_subjects: [{ kind: 'ipaddress', key: 'nope', role: 'source_ip' }],
      },
      auth,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    const fields = r.body.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['kind', 'key', 'severity', 'tags', 'related_subjects[0].key']));
    expect(await counts()).toEqual(before);
  });

  it('reports a missing required field and an unknown field', async () => {
    const r = await s.post('/risk_api/rate/', { ip: '1.2.3.4', ratting: 1 }, auth);
    expect(r.status).toBe(400);
    const fields = r.body.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['rating', 'ratting']));
  });

  it.each([2, 1.5, '1', null])('rejects rating %j', async (rating) => {
    const r = await s.post('/risk_api/rate/', { ip: '1.2.3.4', rating }, auth);
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([expect.objectContaining({ field: 'rating' })]);
  });

  it('rejects an invalid IP naming ip', async () => {
    const r = await s.post('/risk_api/rate/', { ip: '999.1.1.1', rating: 1 }, auth);
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([expect.objectContaining({ field: 'ip' })]);
  });

  it('answers other methods with 405 and Allow', async () => {
    const res = await fetch(`${s.url}/risk_api/rate/`, { headers: auth });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ ok: false, error: 'method_not_allowed' });
  });

  it('answers an unknown path with 404 not_found', async () => {
    const r = await s.post('/risk_api/nothing/', {}, auth);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ ok: false, error: 'not_found' });
  });

  it('accepts the paths without the trailing slash', async () => {
    const r = await s.post('/risk_api/rate', { ip: '1.2.3.4', rating: 0 }, auth);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('serves an OpenAPI 3.1 document whose request schemas use the wire names', async () => {
    const doc = await (await fetch(`${s.url}/risk_api/openapi.json`)).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/risk_api/score/', '/risk_api/rate/', '/risk_api/report/', '/risk_api/dimensions/']),
    );
    expect(Object.keys(doc.components.schemas.ReportRequest.properties)).toEqual(
      expect.arrayContaining(['outcome_code', 'related_subjects', 'share_policy']),
    );
    expect(doc.components.schemas.RateRequest.required).toEqual(expect.arrayContaining(['ip', 'rating']));
  });

  it('answers health and readiness', async () => {
    expect(await (await fetch(`${s.url}/healthz`)).json()).toEqual({ ok: true });
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks.database).toBe('ok');
  });

  it('gives every response a request id', async () => {
    const res = await fetch(`${s.url}/healthz`);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
