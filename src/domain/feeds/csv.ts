/**
 * The small part of CSV (RFC 4180) a threat feed needs, one physical line at a time: comma
 * separated, fields optionally in double quotes, `""` inside quotes is a literal quote.
 * A quoted field cannot span lines (feeds are read line by line); such a row is reported as an
 * error rather than silently merged with the next one.
 */

/** Fields of one line, or null when a quoted field is not closed on this line. */
export function splitCsvLine(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return null;
        const c = line[i]!;
        if (c === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += c;
        i++;
      }
      // Anything between the closing quote and the next comma is kept (lenient, like most readers).
      while (i < line.length && line[i] !== ',') field += line[i++];
      fields.push(field.trim());
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      fields.push(line.slice(i, end).trim());
      i = end;
    }
    if (i >= line.length) return fields;
    i++; // skip the comma
  }
}

/** Header names that identify the address column, in order of preference (case-insensitive). */
export const IP_COLUMN_NAMES = ['ip', 'ip_address', 'ipaddress', 'cidr', 'network', 'address'] as const;

/** Index of the address column, or -1. `wanted` (opts.column) overrides the built-in names. */
export function findIpColumn(header: readonly string[], wanted?: string): number {
  const names = header.map((h) => h.trim().toLowerCase());
  const candidates = wanted !== undefined ? [wanted.trim().toLowerCase()] : IP_COLUMN_NAMES;
  for (const candidate of candidates) {
    const index = names.indexOf(candidate);
    if (index !== -1) return index;
  }
  return -1;
}
