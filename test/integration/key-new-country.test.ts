/**
 * key.new_country (docs/watches.md): an API key used from a country it had not been used from gives one event; its
 * first country only records state; a repeat, an address without a country and another key's use give none; on
 * both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhooks/event-types.ts';

describe(`key.new_country (${backendName})`, () => {
  let s: TestServer;
  let secret: string;
  let other: string;
  let workspaceId: number;
  let keyId: number;
  const countryOf = (ip: string) =>
    s.app.services.network.resolve(ip).dimensions.find((d) => d.code === 'country')?.entity?.key;
  /** A REST call of `key` from `ip` (the test is the trusted proxy that says so). */
  const callFrom = async (ip: string, key = secret) => {
    const r = await fetch(`${s.url}/risk_api/watches/list/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-forwarded-for': ip },
      body: '{}',
    });
    expect(r.status).toBe(200);
  };
  const flush = () => s.app.services.keyCountries.flush(s.app.db.prisma);
  const events = () =>
    s.app.db.prisma.webhookEvent.findMany({ where: { workspaceId, type: 'key.new_country' }, orderBy: { id: 'asc' } });

  beforeAll(async () => {
    s = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1,::1' });
    const key = await s.createKey('key-countries', { tier: 'developer', name: 'checkout' });
    secret = key.secret;
    other = (await s.createKey('key-countries', { tier: 'developer', name: 'other key' })).secret;
    const row = await s.app.db.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.prefix } });
    [workspaceId, keyId] = [row.workspaceId, row.id];
    await s.app.db.prisma.webhookEndpoint.create({
      data: {
        workspaceId,
        url: 'https://hooks.example.com/k',
        eventTypes: [...WEBHOOK_EVENT_TYPES],
        secret: 'whsec_test',
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('records the first country, fires once per new one, and never for a repeat or an address without a country', async () => {
    const candidates = [
      '8.8.8.8',
      '1.1.1.1',
      '9.9.9.9',
      '81.2.69.142',
      '2.125.160.216',
      '89.160.20.112',
      '175.16.199.1',
      '202.196.224.1',
      '217.65.48.1',
      '216.160.83.56',
    ];
    const byCountry = new Map<string, string>();
    for (const ip of candidates) {
      const c = countryOf(ip);
      if (c && !byCountry.has(c)) byCountry.set(c, ip);
    }
    expect(byCountry.size, JSON.stringify([...byCountry])).toBeGreaterThanOrEqual(3);
    const [[c1, ip1], [c2, ip2], [c3, ip3]] = [...byCountry] as [[string, string], [string, string], [string, string]];

    await callFrom(ip1!);
    await callFrom('10.0.0.1'); // private: no country
    await callFrom('127.0.0.1');
    expect(await flush()).toEqual({ recorded: 1, events: 0 });
    expect(await events()).toEqual([]);

    await callFrom(ip1!);
    await callFrom(ip2!);
    await callFrom(ip2!);
    await callFrom(ip2!, other); // another key's first country: state only, and not this key's
    expect(await flush()).toEqual({ recorded: 2, events: 1 });
    await callFrom(ip3!);
    await flush();
    await callFrom(ip2!);
    await callFrom(ip3!);
    await flush();
    const told = await events();
    expect(told.map((e) => (e.data as any).country)).toEqual([c2, c3]);
    expect(told[0]!.data).toEqual({
      api_key: { id: keyId, name: 'checkout', prefix: expect.stringMatching(/^rk_/) },
      country: c2,
      ip: ip2,
      previous_countries: [c1],
      used_at: expect.any(String),
      observed_at: expect.any(String),
    });
    expect((told[1]!.data as any).previous_countries).toEqual([c1, c2]);
    expect(
      (await s.app.db.prisma.apiKeyCountry.findMany({ where: { apiKeyId: keyId } })).map((r) => r.country).sort(),
    ).toEqual([c1, c2, c3].sort());
  });

  it('records a pair once when two trackers (two processes) see it', async () => {
    const { KeyCountryTracker } = await import('../../src/domain/watches/key-countries.ts');
    const key = { apiKeyId: keyId, workspaceId, keyName: 'checkout', keyPrefix: 'rk_x' };
    const ip = '175.16.199.1';
    const country = countryOf(ip);
    expect(country, 'the test address has a country in the packaged data').toBeTruthy();
    await s.app.db.prisma.apiKeyCountry.deleteMany({ where: { apiKeyId: keyId, country: country! } });
    const before = (await events()).length;
    const [one, two] = [new KeyCountryTracker(s.app.services.network), new KeyCountryTracker(s.app.services.network)];
    one.note(key, ip);
    two.note(key, ip);
    const results = await Promise.all([one.flush(s.app.db.prisma), two.flush(s.app.db.prisma)]);
    expect(results.map((r) => r.recorded).sort()).toEqual([0, 1]);
    expect((await events()).length).toBe(before + 1);
  });
});
