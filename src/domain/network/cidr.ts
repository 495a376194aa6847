/**
 * Turning an announced address range into the subnet reported for one IP.
 *
 * Choice: the subnet is the LARGEST CIDR block that lies wholly inside the range [start, end]
 * and contains the IP. Blocks containing an IP are nested, so this block is unique; it is the
 * block of the range's standard (minimal) CIDR decomposition that holds the IP. A range that is
 * itself one prefix (the usual case) therefore yields exactly that prefix.
 */
import { bytesToWords, wordsText, type Words } from './address-words.ts';
import { parseIp } from './ip.ts';

/** Index (0 = most significant) of the first bit where a and b differ; `bits` when equal. */
function firstDifferentBit(a: Words, b: Words): number {
  for (let w = 0; w < a.length; w++) {
    const x = (a[w]! ^ b[w]!) >>> 0;
    if (x !== 0) return w * 32 + Math.clz32(x);
  }
  return a.length * 32;
}

/** Number of trailing bits equal to `bit` (0 or 1). */
function trailingBits(words: Words, bit: 0 | 1): number {
  let count = 0;
  for (let w = words.length - 1; w >= 0; w--) {
    const v = (bit === 0 ? words[w]! : ~words[w]!) >>> 0;
    if (v === 0) {
      count += 32;
      continue;
    }
    return count + (31 - Math.clz32((v & -v) >>> 0));
  }
  return count;
}

/**
 * Prefix length of the largest block inside [start, end] containing ip (start ≤ ip ≤ end).
 * Closed form: the block of length p starts at or after `start` iff p > (first bit where ip and
 * start differ) or start has at least (bits - p) trailing zeros; symmetrically for `end` with
 * trailing ones. The answer is the larger of the two minima.
 */
export function prefixInsideRange(ip: Words, start: Words, end: Words): number {
  const bits = ip.length * 32;
  const fromStart = Math.min(bits - trailingBits(start, 0), firstDifferentBit(ip, start) + 1, bits);
  const fromEnd = Math.min(bits - trailingBits(end, 1), firstDifferentBit(ip, end) + 1, bits);
  return Math.max(fromStart, fromEnd);
}

/** The network address of `ip` under a prefix length. */
export function networkOf(ip: Words, prefix: number): Words {
  return ip.map((word, w) => {
    const keep = Math.min(Math.max(prefix - w * 32, 0), 32);
    if (keep === 0) return 0;
    return (word & (keep === 32 ? 0xffffffff : ~(0xffffffff >>> keep))) >>> 0;
  });
}

/** "net/len" in canonical text, e.g. "1.1.1.0/24" or "2606:4700::/32". */
export function cidrText(ip: Words, prefix: number): string {
  return `${wordsText(networkOf(ip, prefix))}/${prefix}`;
}

/** Addresses in a prefix of this length (IPv6 sizes are floats). */
export function prefixSize(bits: number, prefix: number): number {
  return 2 ** (bits - prefix);
}

/**
 * Whether the block "net/len" holds the canonical address `ip` (both in one family; false for anything unreadable).
 * Parses both each time: it runs only for the few blocks a feed lists in the IP's subnet.
 */
export function blockHolds(block: string, ip: string): boolean {
  const slash = block.indexOf('/');
  const net = parseIp(block.slice(0, slash));
  const addr = parseIp(ip);
  const prefix = Number(block.slice(slash + 1));
  if (slash < 0 || !net.ok || !addr.ok || net.version !== addr.version || !Number.isInteger(prefix)) return false;
  if (prefix < 0 || prefix > addr.bytes.length * 8) return false;
  const a = networkOf(bytesToWords(addr.bytes), prefix);
  const n = networkOf(bytesToWords(net.bytes), prefix);
  return a.every((w, i) => w === n[i]);
}
