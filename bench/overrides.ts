/**
 * The override rules the `score-rest-overrides` row scores under: `RULES` rules in force in the bench workspace,
 * created through `POST /risk_api/overrides/` as a client would (so every process's copy holds them exactly as in
 * use), mixed like a real workspace's list: most on single IPs, then blocks of three prefix lengths, ASes and a
 * few countries, with the three actions in turn. A third of the row's IPs have a rule of their own; every other
 * IP walks the whole lookup (its blocks, its AS, its country) before falling through or matching a country.
 */
export const RULES = 10_000;
const COUNTRIES = ['RU', 'CN', 'KP', 'IR', 'NG', 'VN', 'BR', 'IN', 'ID', 'PK', 'UA', 'BY', 'TR', 'EG', 'RO', 'BG', 'TH', 'PH', 'MY', 'KZ'];

/** The rule bodies: IPs taken from `ips` (the row's own), networks derived from others of them. */
export function ruleBodies(ips: readonly string[]): Array<Record<string, unknown>> {
  const v4 = ips.filter((ip) => !ip.includes(':'));
  const actions = (n: number) => (n % 3 === 0 ? { action: 'deny' } : n % 3 === 1 ? { action: 'allow' } : { action: 'adjust', points: (n % 20) + 1 - (n % 2) * 21 });
  const bodies: Array<Record<string, unknown>> = [];
  const add = (target: string) => bodies.push({ target, ...actions(bodies.length), reason: `bench rule ${bodies.length}` });
  const seen = new Set<string>();
  const unique = (target: string) => { if (!seen.has(target)) { seen.add(target); add(target); } };
  for (let i = 0; i < v4.length && bodies.length < RULES * 0.6; i += 3) unique(v4[i]!);
  const prefixes = [16, 24, 28];
  for (let i = 1; i < v4.length && bodies.length < RULES * 0.9; i += 5) unique(network(v4[i]!, prefixes[i % prefixes.length]!));
  for (let asn = 1; bodies.length < RULES - COUNTRIES.length; asn += 7) unique(`AS${asn}`);
  for (const c of COUNTRIES) unique(c);
  return bodies.slice(0, RULES);
}

function network(ip: string, prefix: number): string {
  const n = ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
  const base = Math.floor(n / 2 ** (32 - prefix)) * 2 ** (32 - prefix);
  return `${[base >>> 24, (base >>> 16) & 255, (base >>> 8) & 255, base & 255].join('.')}/${prefix}`;
}

/** Creates the rules through the API, `concurrency` at a time; returns how long it took. Throws on the first refusal. */
export async function installRules(baseUrl: string, key: string, bodies: ReadonlyArray<Record<string, unknown>>, concurrency = 8): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(`${baseUrl}/risk_api/overrides/`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`creating override ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer().catch(() => {});
    }
  }));
  return Math.round(performance.now() - started);
}
