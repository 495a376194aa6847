/**
 * The real announced IPv4 prefixes the service loads (@ip-location-db/asn, the same file as the network index),
 * grouped by AS and sorted into the kinds of network abuse lives in: hosting (data centres, clouds), mobile (carriers
 * that put many users behind one address) and residential (cable, DSL, fibre ISPs). The kind is read from the AS
 * organisation's name, which is how an analyst would sort them too.
 */
import { readFileSync } from 'node:fs';
import { defaultDataFiles } from '../../src/domain/network/index.ts';
import type { Random } from './random.ts';

export type NetworkKind = 'hosting' | 'mobile' | 'residential' | 'other';
export type Range = { start: number; end: number };
export type AsNetwork = { asn: number; org: string; kind: NetworkKind; ranges: Range[]; size: number };

const HOSTING =
  /host|cloud|server|data ?cent|datacenter|colo|vps|ovh|hetzner|digitalocean|linode|vultr|contabo|leaseweb|choopa|m247/i;
const MOBILE = /mobile|wireless|cellular|celular|movil|movel/i;
const RESIDENTIAL = /cable|broadband|telecom|comcast|communications|dsl|fiber|fibre|telekom|charter|verizon/i;

export function kindOf(org: string): NetworkKind {
  if (HOSTING.test(org)) return 'hosting';
  if (MOBILE.test(org)) return 'mobile';
  if (RESIDENTIAL.test(org)) return 'residential';
  return 'other';
}

/** Unquotes one CSV field of the data file (organisation names may be quoted and hold commas). */
function splitLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let j = i + 1;
      let text = '';
      while (j < line.length) {
        if (line[j] === '"' && line[j + 1] === '"') {
          text += '"';
          j += 2;
        } else if (line[j] === '"') break;
        else text += line[j++];
      }
      out.push(text);
      i = j + 2;
    } else {
      const j = line.indexOf(',', i);
      const end = j < 0 ? line.length : j;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

export class NetworkCatalogue {
  readonly byAsn = new Map<number, AsNetwork>();

  static load(file = defaultDataFiles().asnCsvV4): NetworkCatalogue {
    const catalogue = new NetworkCatalogue();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      const [start, end, asn, org = ''] = splitLine(line);
      const range = { start: Number(start), end: Number(end) };
      const number = Number(asn);
      if (!Number.isInteger(range.start) || !Number.isInteger(range.end) || !Number.isInteger(number) || number === 0)
        continue;
      let network = catalogue.byAsn.get(number);
      if (!network)
        catalogue.byAsn.set(number, (network = { asn: number, org, kind: kindOf(org), ranges: [], size: 0 }));
      network.ranges.push(range);
      network.size += range.end - range.start + 1;
    }
    return catalogue;
  }

  /** ASes of a kind holding at least `minSize` addresses, in AS-number order (a stable base for seeded draws). */
  ofKind(kind: NetworkKind, minSize = 256): AsNetwork[] {
    return [...this.byAsn.values()].filter((n) => n.kind === kind && n.size >= minSize).sort((a, b) => a.asn - b.asn);
  }
}

export function ipText(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** A uniform address of the AS (a range drawn by its size, then an offset), avoiding .0 and .255. */
export function addressIn(network: AsNetwork, random: Random): number {
  const range = network.ranges[random.weighted(network.ranges.map((r) => r.end - r.start + 1))]!;
  for (;;) {
    const n = range.start + random.int(range.end - range.start + 1);
    const last = n & 255;
    if ((last !== 0 && last !== 255) || range.end - range.start < 4) return n;
  }
}

/** The /24 blocks entirely inside the AS's announced ranges, as their first address; at most `limit` of them. */
export function blocksOf(network: AsNetwork, limit = 4096): number[] {
  const out: number[] = [];
  for (const r of network.ranges) {
    for (let b = Math.ceil(r.start / 256) * 256; b + 255 <= r.end && out.length < limit; b += 256) out.push(b);
  }
  return out;
}
