/**
 * Addresses as arrays of 32-bit words (IPv4: 1 word, IPv6: 4 words, most significant first).
 * These fast parsers/printers exist because `resolve` runs per request: they avoid the regex
 * and object churn of a general parser. Anything they cannot read goes through `parseIp`.
 */
import { parseIp } from './ip.ts';

export type Words = number[];
export type ParsedAddress = { version: 4 | 6; canonical: string; words: Words };

/** Dotted quad → uint32, or -1 when not a strict dotted quad (leading zeros refused, as in parseIp). */
export function parseV4(text: string): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return -1;
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return -1;
    } else return -1;
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + octet;
}

const groups = new Uint16Array(8); // scratch: parsing is synchronous, so one buffer is enough

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * Hex-only IPv6 text (at most one "::", no embedded dotted quad) → 4 words written into `out`
 * at `at`; false if unreadable. A char-code loop: this runs for every row of the IPv6 CSV.
 */
export function parseV6Into(text: string, out: Uint32Array | number[], at: number): boolean {
  const len = text.length;
  let n = 0;
  let gap = -1;
  let i = 0;
  if (len >= 2 && text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < len) {
    let value = 0;
    let digits = 0;
    for (; i < len; i++) {
      const d = hexValue(text.charCodeAt(i));
      if (d < 0) break;
      value = value * 16 + d;
      if (++digits > 4) return false;
    }
    if (digits === 0 || n === 8) return false;
    groups[n++] = value;
    if (i === len) break;
    if (text.charCodeAt(i) !== 58) return false;
    i++;
    if (i < len && text.charCodeAt(i) === 58) {
      if (gap !== -1) return false;
      gap = n;
      i++;
    } else if (i === len) return false;
  }
  if (gap === -1 ? n !== 8 : n > 7) return false;
  if (gap !== -1) {
    const moved = n - gap;
    for (let k = 0; k < moved; k++) groups[7 - k] = groups[n - 1 - k]!;
    for (let k = gap; k < 8 - moved; k++) groups[k] = 0;
  }
  for (let w = 0; w < 4; w++) out[at + w] = ((groups[2 * w]! << 16) | groups[2 * w + 1]!) >>> 0;
  return true;
}

/** Parse an IP for resolution: fast paths for canonical text, `parseIp` for anything else. */
export function parseAddress(text: string): ParsedAddress | null {
  const v4 = parseV4(text);
  if (v4 >= 0) return { version: 4, canonical: text, words: [v4] };
  const words = [0, 0, 0, 0];
  if (parseV6Into(text, words, 0)) {
    // IPv4-mapped (::ffff:a.b.c.d) is the IPv4 address, as in parseIp
    if (words[0] === 0 && words[1] === 0 && words[2] === 0xffff)
      return { version: 4, canonical: v4Text(words[3]!), words: [words[3]!] };
    return { version: 6, canonical: v6Text(words), words };
  }
  const parsed = parseIp(text);
  if (!parsed.ok) return null;
  if (parsed.version === 4) return { version: 4, canonical: parsed.canonical, words: [bytesToWords(parsed.bytes)[0]!] };
  return { version: 6, canonical: parsed.canonical, words: bytesToWords(parsed.bytes) };
}

export function bytesToWords(bytes: number[]): Words {
  const words: Words = [];
  for (let i = 0; i < bytes.length; i += 4) {
    words.push(((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0);
  }
  return words;
}

export function v4Text(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** RFC 5952 text: lower-case hex, leading zeros dropped, the longest (leftmost on ties) run of ≥2 zero groups as "::". */
export function v6Text(words: Words): string {
  const groups: number[] = [];
  for (let w = 0; w < 4; w++) groups.push(words[w]! >>> 16, words[w]! & 0xffff);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function wordsText(words: Words): string {
  return words.length === 1 ? v4Text(words[0]!) : v6Text(words);
}

/** Compare two addresses of the same family held in flat word arrays. */
export function compareWords(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number, n: number): number {
  for (let k = 0; k < n; k++) {
    const x = a[ai + k]!;
    const y = b[bi + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
