/**
 * The override rules the `score-rest-overrides` row scores under: `RULES` rules in force in the bench workspace,
 * created through `POST /risk_api/overrides/` as a client would (so the server holds them exactly as in use), with
 * the three actions in turn. The mix is a blocklist a fraud team keeps: single IPs (60%), blocks of three prefix
 * lengths (30%) and ASes (10%). `MATCHED_SHARE` of the row's IPs are covered, half by a rule on the IP itself and
 * half by one on its block; every other call walks the whole lookup (its IP, its blocks longest first, its AS and
 * country) and finds nothing. The rest of the rules lie where the row's IPs are not (100.64.0.0/10, shared address
 * space, and private AS numbers): a rule set the size of a real one, most of it about other traffic. No country
 * rules: one would cover a whole country's share of the row, which measures a bigger answer, not the lookup.
 */
export const RULES = 10_000;
export const MATCHED_SHARE = 0.1;

/** The rule bodies for a row sending `rowIps` (its distinct IPs, in the order they are sent). */
export function ruleBodies(rowIps: readonly string[]): Array<Record<string, unknown>> {
  const actions = (n: number) =>
    n % 3 === 0
      ? { action: 'deny' }
      : n % 3 === 1
        ? { action: 'allow' }
        : { action: 'adjust', points: (n % 20) + 1 - (n % 2) * 21 };
  const targets = new Set<string>();
  const v4 = [...new Set(rowIps)].filter((ip) => !ip.includes(':'));
  const every = Math.round(1 / MATCHED_SHARE);
  const prefixes = [16, 24, 28];
  // Matched: the IP itself for one in `every` of the row's IPs, a block around another one in `every`.
  for (let i = 0; i < v4.length; i += every) targets.add(v4[i]!);
  for (let i = every >> 1, k = 0; i < v4.length; i += every, k++)
    targets.add(network(v4[i]!, prefixes[k % prefixes.length]!));
  // The rest of the list: other addresses and blocks in 100.64.0.0/10, then private AS numbers.
  const shared = (n: number) => 0x64400000 + ((n * 97) % 2 ** 22); // inside 100.64.0.0/10
  for (let n = 0; targets.size < RULES * 0.6; n++) targets.add(dotted(shared(n)));
  for (let n = 0; targets.size < RULES * 0.9; n++)
    targets.add(network(dotted(shared(n * 4099)), prefixes[n % prefixes.length]!));
  for (let asn = 4_200_000_000; targets.size < RULES; asn++) targets.add(`AS${asn}`);
  return [...targets].slice(0, RULES).map((target, n) => ({ target, ...actions(n), reason: `bench rule ${n}` }));
}

const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

function network(ip: string, prefix: number): string {
  const n = ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
  return `${dotted(Math.floor(n / 2 ** (32 - prefix)) * 2 ** (32 - prefix))}/${prefix}`;
}

/** Creates the rules through the API, `concurrency` at a time; returns how long it took. Throws on the first refusal. */
export async function installRules(
  baseUrl: string,
  key: string,
  bodies: ReadonlyArray<Record<string, unknown>>,
  concurrency = 8,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const res = await fetch(`${baseUrl}/risk_api/overrides/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify(body),
        });
        if (res.status !== 201)
          throw new Error(`creating override ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer().catch(() => {});
      }
    }),
  );
  return Math.round(performance.now() - started);
}
