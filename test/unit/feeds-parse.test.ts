/**
 * Feed parser on real-looking fixtures: FireHOL netset, Spamhaus DROP, CSV with quotes and bad
 * rows, IPv6, ranges; plus the incremental/streaming entry points agreeing with the text one.
 */
import { describe, expect, it } from 'vitest';
import { FeedParser, parseFeed, parseFeedText } from '../../src/domain/feeds/parse.ts';
import { parseNetworkText } from '../../src/domain/feeds/network-text.ts';

const FIREHOL = `#
# firehol_level1
#
# ipv4 hash:net ipset
#
# A firewall blacklist composed from IP lists, providing
# maximum protection with minimum false positives.
#
# Source URL: This is a composite list
#
# Maintainer      : FireHOL
# Maintainer URL  : http://iplists.firehol.org/
# List source URL :
#
# This File Date  : Thu Feb 26 10:14:05 UTC 2026
# Entries         : 4512 subnets, 612345678 unique IPs
#
0.0.0.0/8
1.10.16.0/20
1.19.0.0/16
2.57.122.0/24
5.134.128.0/19
223.254.0.0/16
`;

const SPAMHAUS_DROP = `; Spamhaus DROP List 2026/02/26 - (c) 2026 The Spamhaus Project SLU
; https://www.spamhaus.org/drop/drop.txt
; Last-Modified: Wed, 25 Feb 2026 17:45:21 GMT
; Expires: Thu, 26 Feb 2026 18:54:41 GMT
1.10.16.0/20 ; SBL256894
1.19.0.0/16 ; SBL434604
2.56.192.0/22 ; SBL459831
`;

describe('parseFeedText: plain', () => {
  it('reads a FireHOL netset, skipping its header comments', () => {
    const r = parseFeedText(FIREHOL, 'plain');
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => e.cidr)).toEqual([
      '0.0.0.0/8',
      '1.10.16.0/20',
      '1.19.0.0/16',
      '2.57.122.0/24',
      '5.134.128.0/19',
      '223.254.0.0/16',
    ]);
    expect(r.entries[0]?.line).toBe(18);
    expect(r.lines).toBe(23);
  });

  it('counts the lines that held a valid value (duplicates and ranges too), apart from comments, blanks and bad lines', () => {
    const r = parseFeedText('# header\n\n192.0.2.1\n192.0.2.1 ; again\n10.0.0.1-10.0.0.6\nnot-an-ip\n', 'plain');
    expect({ entries: r.entries.length, validLines: r.validLines, errors: r.errors.length, lines: r.lines }).toEqual({
      entries: 5,
      validLines: 3,
      errors: 1,
      lines: 6,
    });
  });

  it('reads Spamhaus DROP with trailing "; SBL" comments', () => {
    const r = parseFeedText(SPAMHAUS_DROP, 'plain');
    expect({ entries: r.entries, errors: r.errors, lines: r.lines }).toEqual({
      entries: [
        { cidr: '1.10.16.0/20', line: 5 },
        { cidr: '1.19.0.0/16', line: 6 },
        { cidr: '2.56.192.0/22', line: 7 },
      ],
      errors: [],
      lines: 7,
    });
  });

  it('normalises single IPs, host bits, IPv6 and IPv4-mapped forms; collapses duplicates to the first line', () => {
    const r = parseFeedText(
      [
        '198.51.100.7',
        '198.51.100.77/24   # member address with its prefix',
        '198.51.100.0/24',
        '2001:DB8:0:0::1',
        '2001:db8:abcd:12:ffff::/48',
        '::ffff:192.0.2.1',
        '::ffff:192.0.2.128/121',
        '198.51.100.7/32',
      ].join('\r\n'),
      'plain',
    );
    expect(r.errors).toEqual([]);
    expect(r.entries).toEqual([
      { cidr: '198.51.100.7/32', line: 1 },
      { cidr: '198.51.100.0/24', line: 2 },
      { cidr: '2001:db8::1/128', line: 4 },
      { cidr: '2001:db8:abcd::/48', line: 5 },
      { cidr: '192.0.2.1/32', line: 6 },
      { cidr: '192.0.2.128/25', line: 7 },
    ]);
  });

  it('decomposes ranges into the minimal CIDR list', () => {
    expect(parseNetworkText('10.0.0.1-10.0.0.6')).toEqual({
      ok: true,
      cidrs: ['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/31', '10.0.0.6/32'],
    });
    expect(parseNetworkText('192.0.2.0 - 192.0.2.255')).toEqual({ ok: true, cidrs: ['192.0.2.0/24'] });
    expect(parseNetworkText('0.0.0.0-255.255.255.255')).toEqual({ ok: true, cidrs: ['0.0.0.0/0'] });
    expect(parseNetworkText('2001:db8::-2001:db8::ffff')).toEqual({ ok: true, cidrs: ['2001:db8::/112'] });
  });

  it('reports each bad line with its number, its text and a reason, and keeps going', () => {
    const long = `999.1.1.1 ${'x'.repeat(300)}`;
    const r = parseFeedText(
      [
        '203.0.113.0/24',
        '203.0.113.0/33',
        '010.1.1.1',
        '2001:db8::/129',
        'fe80::1%eth0',
        '192.0.2.9-192.0.2.1',
        '192.0.2.1-2001:db8::1',
        '1.2.3.4 5.6.7.8',
        '1.2.3.4/x',
        long,
        '',
        '198.51.100.1',
      ].join('\n'),
      'plain',
    );
    expect(r.entries).toEqual([
      { cidr: '203.0.113.0/24', line: 1 },
      { cidr: '198.51.100.1/32', line: 12 },
    ]);
    expect(r.errors.map((e) => [e.line, e.reason])).toEqual([
      [2, 'prefix length /33 is out of range for IPv4 (0-32)'],
      [3, '"010.1.1.1" is not a valid IPv4 or IPv6 address'],
      [4, 'prefix length /129 is out of range for IPv6 (0-128)'],
      [5, '"fe80::1%eth0" must not carry an IPv6 zone id'],
      [6, 'range ends before it starts'],
      [7, 'range mixes IPv4 and IPv6'],
      [8, 'unexpected text after the address'],
      [9, 'prefix length "x" is not a number'],
      [10, 'unexpected text after the address'],
    ]);
    expect(r.errors[0]?.text).toBe('203.0.113.0/33');
    expect(r.errors[8]?.text).toHaveLength(200);
    expect(r.fatal).toBe(false);
  });

  it('keeps at most maxErrors errors and counts the rest', () => {
    const r = parseFeedText(Array.from({ length: 30 }, () => 'junk').join('\n'), 'plain', { maxErrors: 10 });
    expect([r.errors.length, r.errorsOmitted, r.lines]).toEqual([10, 20, 30]);
  });
});

describe('parseFeedText: csv', () => {
  const CSV = [
    '# exported 2026-02-26',
    'first_seen,"IP Address",port,"malware, family"',
    '"2026-02-20 07:30:05","ignored",443,"x"',
  ];

  it('finds the address column by name, honours quotes and reports bad rows by line', () => {
    const text = [
      'first_seen_utc,ip_address,dst_port,c2_status,"comment"',
      '"2026-01-17 07:30:05","67.213.75.205","443","online","said ""hello"", then left"',
      '2026-01-18 11:02:00,  185.220.101.4 ,8443,offline,',
      '2026-01-19 00:00:00,not-an-ip,80,online,',
      '2026-01-20 00:00:00',
      '2026-01-21 00:00:00,"2a0e:1c80:1::/48",443,online,"unterminated',
      '',
      '2026-01-22 00:00:00,"2a0e:1c80:1::/48",443,online,',
      '"2026-01-23 00:00:00","67.213.75.205","80","online",""',
    ].join('\n');
    const r = parseFeedText(text, 'csv');
    expect(r.entries).toEqual([
      { cidr: '67.213.75.205/32', line: 2 },
      { cidr: '185.220.101.4/32', line: 3 },
      { cidr: '2a0e:1c80:1::/48', line: 8 },
    ]);
    expect(r.errors.map((e) => [e.line, e.reason])).toEqual([
      [4, '"not-an-ip" is not a valid IPv4 or IPv6 address'],
      [5, 'the row has 1 fields; the address is in field 2'],
      [6, 'unterminated quoted field (fields cannot span lines)'],
    ]);
    expect(r.lines).toBe(9);
  });

  it('fails the whole feed with one error when no address column exists', () => {
    const r = parseFeedText(
      [...CSV.slice(0, 2).map((l) => l.replace('"IP Address"', 'host')), '1.2.3.4,5'].join('\n'),
      'csv',
    );
    expect(r).toEqual({
      entries: [],
      lines: 3,
      validLines: 0,
      fatal: true,
      errorsOmitted: 0,
      errors: [
        {
          line: 2,
          text: 'first_seen,host,port,"malware, family"',
          reason:
            'the CSV header has no address column (expected one of ip, ip_address, ipaddress, cidr, network, address)',
        },
      ],
    });
  });

  it('uses opts.column when given (case-insensitive) and refuses a feed without a header', () => {
    const r = parseFeedText([...CSV.slice(0, 2), '"2026-02-20",198.51.100.9,443,"x"'].join('\n'), 'csv', {
      column: 'ip address',
    });
    expect(r.entries).toEqual([{ cidr: '198.51.100.9/32', line: 3 }]);
    expect(r.errors).toEqual([]);
    expect(parseFeedText('# only a comment\n\n', 'csv')).toMatchObject({
      fatal: true,
      errors: [{ line: 0, reason: 'the CSV feed has no header row' }],
    });
  });
});

describe('incremental and streaming entry points', () => {
  it('FeedParser.pushLine gives the same result as parseFeedText', () => {
    const parser = new FeedParser('plain');
    for (const [i, line] of SPAMHAUS_DROP.split('\n').slice(0, -1).entries()) parser.pushLine(line, i + 1);
    expect(parser.result()).toEqual(parseFeedText(SPAMHAUS_DROP, 'plain'));
  });

  it('parseFeed reassembles lines split across string and byte chunks', async () => {
    const bytes = new TextEncoder().encode(`${FIREHOL}2001:db8::/32 # no final newline`);
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 7) {
        const piece = bytes.slice(i, i + 7);
        yield i % 2 === 0 ? piece : new TextDecoder().decode(piece);
      }
    }
    // Only 7-byte pieces at even offsets are bytes; the text pieces are all ASCII, so decoding them alone is safe.
    const streamed = await parseFeed(chunks(), 'plain');
    expect(streamed).toEqual(parseFeedText(`${FIREHOL}2001:db8::/32 # no final newline`, 'plain'));
    expect(streamed.entries.at(-1)).toEqual({ cidr: '2001:db8::/32', line: 24 });
    expect(await parseFeed(SPAMHAUS_DROP, 'plain')).toEqual(parseFeedText(SPAMHAUS_DROP, 'plain'));
  });
});
