import { BlockList, isIP } from 'node:net';
import { parseIp } from '../../domain/network/ip.ts';

/**
 * The requester's address for the community signal. X-Forwarded-For is honoured only as far
 * as it was written by trusted proxies: walking from the right (the hop closest to us), each
 * address added by a trusted proxy is skipped; the first untrusted one is the client. With no
 * trusted proxies configured, the header is ignored (anyone can forge it).
 */
export function trustedProxies(list: string[]): BlockList {
  const block = new BlockList();
  for (const entry of list) {
    const [addr, bits] = entry.split('/');
    const type = isIP(addr ?? '') === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) block.addAddress(addr!, type);
    else block.addSubnet(addr!, Number(bits), type);
  }
  return block;
}

function canonical(address: string | undefined): string | null {
  if (!address) return null;
  const parsed = parseIp(address.trim());
  return parsed.ok ? parsed.canonical : null;
}

function isTrusted(block: BlockList, ip: string): boolean {
  return block.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

export function clientIp(
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | null | undefined,
  trusted: BlockList | null,
): string {
  let current = canonical(remoteAddress) ?? 'unknown';
  if (!trusted || !forwardedFor || current === 'unknown' || !isTrusted(trusted, current)) return current;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonical(hops[i]);
    if (hop === null) return current; // a malformed hop: stop at the last address we could trust
    current = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return current;
}
