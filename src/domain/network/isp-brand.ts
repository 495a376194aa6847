/**
 * ISP "brand" derivation. The free data has no ISP field, only the AS organisation as
 * registered, and one operator usually registers several legal entities ("Comcast Cable
 * Communications, LLC", "Charter Communications Inc", "Charter Communications, Inc"). The
 * brand is the organisation name with its legal form and punctuation removed, so siblings
 * group together:
 *   1. Split the name into words on whitespace and commas; drop from each word every character
 *      that is not a letter, digit, '&', '.', '-' or '+' (quotes, brackets...), then drop empties.
 *   2. Compare words case-insensitively with their dots removed ("S.A." → "sa", "Co." → "co").
 *   3. Repeatedly strip trailing legal-form words (Inc, LLC, Ltd, Limited, GmbH, SA, SAU, SAS,
 *      SARL, Corp, Corporation, Co, Company, AG, BV, NV, PLC, Pty, SRL, SpA, KG, OHG, AB, AS, Oy,
 *      KK, LP, LLP, JSC, ...). A connector word (de, &, and, public, private, joint, stock,
 *      liability, closed, open, pvt) is stripped only right after a legal word was, which handles
 *      "S.A. de C.V.", "GmbH & Co. KG", "Public Company Limited", "Joint Stock Company".
 *   4. Strip leading legal forms used as prefixes (LLC, OOO, JSC, PJSC, PT, CV, ...), as in
 *      'LLC "SPUTNIK"' or 'PT Telkom Indonesia'.
 *   5. Never strip every word: a name made only of legal words stays as it was.
 *   6. Trailing dots are trimmed from the last word. brand name = remaining words joined by one
 *      space (original case); brand key = that text lower-cased.
 * Different operators sharing a bare name would merge; that is the accepted cost of grouping.
 */

const LEGAL_TAIL = new Set([
  'inc',
  'incorporated',
  'llc',
  'ltd',
  'ltda',
  'limited',
  'gmbh',
  'mbh',
  'sa',
  'sau',
  'saa',
  'sas',
  'sarl',
  'corp',
  'corporation',
  'co',
  'company',
  'ag',
  'bv',
  'nv',
  'plc',
  'pty',
  'srl',
  'sro',
  'spa',
  'kg',
  'ohg',
  'ab',
  'as',
  'asa',
  'oy',
  'oyj',
  'kk',
  'lp',
  'llp',
  'jsc',
  'pjsc',
  'ojsc',
  'cjsc',
  'cv',
  'sl',
  'slu',
  'bhd',
  'sdn',
  'eirl',
  'eireli',
  'me',
  'sac',
  'ooo',
  'zao',
  'oao',
  'pao',
  'ao',
  'ek',
  'gmbhcoohg',
  'gmbhcokg',
  'coohg',
  'cokg',
  'akcyjna',
  'spolka',
  'zoo',
  'oo',
  'doo',
  'ad',
  'ltdsti',
]);
const CONNECTORS = new Set([
  'de',
  '&',
  'and',
  'public',
  'private',
  'joint',
  'stock',
  'liability',
  'closed',
  'open',
  'pvt',
  'sp',
  'z',
]);
const LEGAL_HEAD = new Set([
  'llc',
  'ooo',
  'zao',
  'oao',
  'pao',
  'ao',
  'jsc',
  'pjsc',
  'ojsc',
  'cjsc',
  'pt',
  'cv',
  'tov',
  'too',
]);

function comparable(word: string): string {
  return word.toLowerCase().replace(/\./g, '');
}

/** The brand words of an organisation name (see the rule above). */
export function ispBrandName(orgName: string): string {
  const words = orgName
    .split(/[\s,]+/)
    .map((w) => w.replace(/[^\p{L}\p{N}&.+-]/gu, ''))
    .filter((w) => w.length > 0 && w !== '.' && w !== '-');
  if (words.length === 0) return orgName.trim();
  let end = words.length;
  let strippedLegal = false;
  while (end > 1) {
    const word = comparable(words[end - 1]!);
    if (LEGAL_TAIL.has(word)) {
      strippedLegal = true;
      end--;
      continue;
    }
    if (strippedLegal && CONNECTORS.has(word)) {
      end--;
      continue;
    }
    break;
  }
  let start = 0;
  while (end - start > 1 && LEGAL_HEAD.has(comparable(words[start]!))) start++;
  const kept = words.slice(start, end);
  kept[kept.length - 1] = kept[kept.length - 1]!.replace(/\.+$/, '');
  const name = kept.join(' ').trim();
  return name.length > 0 ? name : orgName.trim();
}

/** The isp dimension key of an organisation name: its brand, lower-cased. */
export function ispKeyOf(orgName: string): string {
  return ispBrandName(orgName).toLowerCase();
}

/** The org dimension key: the registered name lower-cased, whitespace collapsed, trimmed. */
export function orgKeyOf(orgName: string): string {
  return orgName.trim().replace(/\s+/g, ' ').toLowerCase();
}
