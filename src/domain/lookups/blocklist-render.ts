/**
 * The blocklist in the formats firewalls import (docs/api.md#blocklist shows each with its recipe). The JSON
 * format is the operation's own answer (transport/operations/blocklist.ts); these are the text ones.
 */
import type { BlocklistEntry, BlocklistList } from './blocklist.ts';
import type { BlocklistFormat } from './blocklist-input.ts';
import { rangeOf } from './address-ranges.ts';

export const BLOCKLIST_CONTENT_TYPES: Record<BlocklistFormat, string> = {
  text: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  nftables: 'text/plain; charset=utf-8',
  ipset: 'text/plain; charset=utf-8',
};

/** The smallest ipset maxelem: its own default. */
const IPSET_MIN_ELEMENTS = 65_536;

export function renderBlocklist(
  list: BlocklistList,
  format: Exclude<BlocklistFormat, 'json'>,
  setName: string,
): string {
  switch (format) {
    case 'text':
      return list.entries.map((e) => `${e.entry}\n`).join('');
    case 'csv':
      return `entry,kind,score,level,source\r\n${list.entries.map((e) => `${e.entry},${e.kind},${e.score},${e.level},${e.source}\r\n`).join('')}`;
    case 'nftables':
      return nftables(list.entries, setName);
    case 'ipset':
      return ipset(list.entries, setName);
  }
}

/** Entries by family, less those inside another listed block (an nft interval set refuses overlapping elements). */
function byFamily(entries: BlocklistEntry[]): Record<4 | 6, string[]> {
  const ranges = entries.flatMap((e) => {
    const r = rangeOf(e.entry);
    return r ? [{ ...r, entry: e.entry }] : [];
  });
  ranges.sort((a, b) =>
    a.start !== b.start ? (a.start < b.start ? -1 : 1) : a.end > b.end ? -1 : a.end < b.end ? 1 : 0,
  );
  const out: Record<4 | 6, string[]> = { 4: [], 6: [] };
  const coveredTo: Record<4 | 6, bigint> = { 4: -1n, 6: -1n };
  for (const r of ranges) {
    if (r.end <= coveredTo[r.version]) continue;
    out[r.version].push(r.entry);
    coveredTo[r.version] = r.end;
  }
  return out;
}

/**
 * One `nft -f` script: the table is created, emptied and filled in one transaction (nft applies a file
 * atomically), with its own input chain dropping both sets' sources, so no other rule has to name them.
 */
function nftables(entries: BlocklistEntry[], name: string): string {
  const families = byFamily(entries);
  const set = (family: 4 | 6) => {
    const elements = families[family];
    const body = elements.length > 0 ? `\n    elements = {\n      ${elements.join(',\n      ')}\n    }` : '';
    return `  set ${name}_v${family} {\n    type ipv${family}_addr\n    flags interval${body}\n  }\n`;
  };
  return (
    `table inet ${name}\ndelete table inet ${name}\ntable inet ${name} {\n${set(4)}${set(6)}` +
    `  chain input {\n    type filter hook input priority filter - 10; policy accept;\n` +
    `    ip saddr @${name}_v4 drop\n    ip6 saddr @${name}_v6 drop\n  }\n}\n`
  );
}

/**
 * One `ipset restore` file: each family's set is filled under a temporary name, then swapped in, so the set a
 * firewall rule names is never empty or half full.
 */
function ipset(entries: BlocklistEntry[], name: string): string {
  const families = byFamily(entries);
  let out = '';
  for (const family of [4, 6] as const) {
    const set = `${name}_v${family}`;
    const next = `${set}_new`;
    const options = `hash:net family ${family === 4 ? 'inet' : 'inet6'} maxelem ${Math.max(IPSET_MIN_ELEMENTS, families[family].length)}`;
    out += `create ${next} ${options}\nflush ${next}\n`;
    for (const e of families[family]) out += `add ${next} ${e}\n`;
    out += `create ${set} ${options}\nswap ${next} ${set}\ndestroy ${next}\n`;
  }
  return out;
}
