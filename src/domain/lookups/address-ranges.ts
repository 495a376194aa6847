import { parseIp } from '../network/ip.ts';

/** An address or CIDR block as the first and last address it covers, as integers of its family. */
export type AddressRange = { version: 4 | 6; start: bigint; end: bigint };

/** The range of "203.0.113.7" or "203.0.113.0/24" (text already canonical: a rule's target or a subnet key). */
export function rangeOf(text: string): AddressRange | null {
  const slash = text.indexOf('/');
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!ip.ok) return null;
  const bits = ip.version === 4 ? 32 : 128;
  const prefix = slash < 0 ? bits : Number(text.slice(slash + 1));
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return null;
  let value = 0n;
  for (const b of ip.bytes) value = (value << 8n) | BigInt(b);
  const host = (1n << BigInt(bits - prefix)) - 1n;
  return { version: ip.version, start: value & ~host, end: (value & ~host) | host };
}

/**
 * A set of ranges asked "does anything of yours overlap this range?" in O(log n): sorted by start, each position
 * holding the largest end up to it, so the last range starting at or before the asked end decides.
 */
export class RangeSet {
  private readonly byVersion: Record<4 | 6, { starts: bigint[]; maxEnds: bigint[] }>;

  constructor(ranges: AddressRange[]) {
    const of = (version: 4 | 6) => {
      const sorted = ranges.filter((r) => r.version === version).sort((a, b) => (a.start < b.start ? -1 : 1));
      const maxEnds: bigint[] = [];
      for (const r of sorted) maxEnds.push(maxEnds.length && maxEnds.at(-1)! > r.end ? maxEnds.at(-1)! : r.end);
      return { starts: sorted.map((r) => r.start), maxEnds };
    };
    this.byVersion = { 4: of(4), 6: of(6) };
  }

  overlaps(r: AddressRange): boolean {
    const { starts, maxEnds } = this.byVersion[r.version];
    let lo = 0;
    let hi = starts.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= r.end) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return last >= 0 && maxEnds[last]! >= r.start;
  }
}
