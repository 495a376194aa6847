/**
 * A CIDR block as check_block takes it: parsed once, bounded, canonical.
 *
 * Choices (docs/api.md, check_block):
 * - Host bits set ("203.0.113.7/24") are cleared, not refused: the block is the one that holds the address
 *   ("203.0.113.0/24"), and the answer's query.cidr says which block was read.
 * - The prefix is required: a bare address is not a block (score answers one address).
 * - IPv4-mapped IPv6 ("::ffff:203.0.113.0/120") is refused: the block must be written in its own family,
 *   so its prefix length means what it says.
 * - The bound: IPv4 /16 (65,536 addresses) and IPv6 /48 at most; a larger block is refused naming the bound.
 */
import { parseIp } from './ip.ts';
import { bytesToWords, wordsText, type Words } from './address-words.ts';
import { networkOf } from './cidr.ts';

/** The shortest prefix (largest block) accepted per family. */
export const BLOCK_BOUNDS = { 4: 16, 6: 48 } as const;

export type CidrBlock = {
  /** Canonical "network/prefix" text (host bits cleared, RFC 5952 for IPv6). */
  cidr: string;
  version: 4 | 6;
  prefix: number;
  /** The first and last address of the block, canonical. */
  first: string;
  last: string;
  /** Addresses in the block (a /48 holds 2^80: beyond a double's exact integers). */
  size: bigint;
  /** True when the text had host bits set and they were cleared. */
  hostBitsCleared: boolean;
};

export type BlockParse = { ok: true; block: CidrBlock } | { ok: false; reason: string };

const PREFIX = /^\d{1,3}$/;

export function parseBlock(input: string): BlockParse {
  const text = input.trim();
  const slash = text.indexOf('/');
  if (slash < 0)
    return {
      ok: false,
      reason: 'must be a CIDR block with its prefix length, such as 203.0.113.0/24 or 2001:db8:1::/48',
    };
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const parsed = parseIp(address);
  if (!parsed.ok) return { ok: false, reason: `has an address that ${parsed.reason}` };
  if (parsed.version === 4 && address.includes(':')) {
    return { ok: false, reason: 'is an IPv4-mapped IPv6 block; write it as an IPv4 block (such as 203.0.113.0/24)' };
  }
  const bits = parsed.version === 4 ? 32 : 128;
  if (!PREFIX.test(prefixText) || Number(prefixText) > bits)
    return { ok: false, reason: `must have a prefix length of 0 to ${bits}` };
  const prefix = Number(prefixText);
  const bound = BLOCK_BOUNDS[parsed.version];
  if (prefix < bound) {
    return {
      ok: false,
      reason: `is larger than the largest block checked: IPv${parsed.version} /${bound} (a /${bound} or a longer prefix)`,
    };
  }
  const words = bytesToWords(parsed.bytes);
  const network = networkOf(words, prefix);
  const cidr = `${wordsText(network)}/${prefix}`;
  return {
    ok: true,
    block: {
      cidr,
      version: parsed.version,
      prefix,
      first: wordsText(network),
      last: wordsText(lastOf(network, prefix)),
      size: 1n << BigInt(bits - prefix),
      hostBitsCleared: network.some((w, i) => w !== words[i]),
    },
  };
}

/** The last address of the block starting at `network`: every host bit set. */
function lastOf(network: Words, prefix: number): Words {
  return network.map((word, w) => {
    const keep = Math.min(Math.max(prefix - w * 32, 0), 32);
    return keep === 32 ? word : (word | (0xffffffff >>> keep)) >>> 0;
  });
}

/** Whether a canonical address lies in the block (same family, between its first and last address). */
export function blockHolds(block: CidrBlock, ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed.ok || parsed.version !== block.version) return false;
  const words = bytesToWords(parsed.bytes);
  return `${wordsText(networkOf(words, block.prefix))}/${block.prefix}` === block.cidr;
}
