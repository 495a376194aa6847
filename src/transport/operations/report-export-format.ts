/** One exported report row and its NDJSON / CSV renderings (snake_case, like the rest of /risk_api). */
export type ExportRow = {
  id: number;
  createdAt: Date;
  eventType: string;
  outcomeCode: string;
  severity: string;
  status: string;
  title: string;
  summary: string;
  tags: string[];
  namespace: string;
  sharePolicy: string;
  effectiveVisibility: string;
  subject: { kind: string; key: string };
  links: Array<{ role: string; subject: { kind: string; key: string } }>;
};

export const EXPORT_SELECT = {
  id: true,
  createdAt: true,
  eventType: true,
  outcomeCode: true,
  severity: true,
  status: true,
  title: true,
  summary: true,
  tags: true,
  namespace: true,
  sharePolicy: true,
  effectiveVisibility: true,
  subject: { select: { kind: true, key: true } },
  links: {
    select: { role: true, subject: { select: { kind: true, key: true } } },
    orderBy: { position: 'asc' as const },
  },
} as const;

export function toRecord(r: ExportRow) {
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    subject: { kind: r.subject.kind, key: r.subject.key },
    event_type: r.eventType,
    outcome_code: r.outcomeCode,
    severity: r.severity,
    status: r.status,
    title: r.title,
    summary: r.summary,
    tags: r.tags,
    namespace: r.namespace,
    share_policy: r.sharePolicy,
    effective_visibility: r.effectiveVisibility,
    related_subjects: r.links.map((l) => ({ kind: l.subject.kind, key: l.subject.key, role: l.role })),
  };
}

export const CSV_HEADER =
  'id,created_at,subject_kind,subject_key,event_type,outcome_code,severity,status,title,summary,tags,namespace,share_policy,effective_visibility,related_subjects\r\n';

/** A cell starting with one of these is run as a formula by Excel, LibreOffice and Google Sheets (=HYPERLINK
 *  sends other cells to a URL, DDE starts programs): OWASP's CSV injection list. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** RFC 4180: quote every text cell, double inner quotes. A cell a spreadsheet would run as a formula gets a
 *  leading `'` (OWASP): spreadsheets show it as text, and a program reading the file sees the quote. Tags are
 *  joined by ";", related subjects are a JSON array. */
function cell(value: string): string {
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
}

export function toCsvLine(r: ExportRow): string {
  const related = JSON.stringify(r.links.map((l) => ({ kind: l.subject.kind, key: l.subject.key, role: l.role })));
  return `${[
    String(r.id),
    r.createdAt.toISOString(),
    cell(r.subject.kind),
    cell(r.subject.key),
    r.eventType,
    r.outcomeCode,
    r.severity,
    cell(r.status),
    cell(r.title),
    cell(r.summary),
    cell(r.tags.join(';')),
    cell(r.namespace),
    r.sharePolicy,
    r.effectiveVisibility,
    cell(related),
  ].join(',')}\r\n`;
}

/** Continuation cursors hold a (createdAt, id) position, so rows stored meanwhile never shift the next request. */
export function encodeExportCursor(createdAt: Date, id: number): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`, 'utf8').toString('base64url');
}

export function decodeExportCursor(cursor: string): { createdAt: Date; id: number } | null {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  const n = Number(id);
  return Number.isNaN(createdAt.getTime()) || !Number.isInteger(n) || n < 1 ? null : { createdAt, id: n };
}
