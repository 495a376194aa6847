import type { IncomingMessage } from 'node:http';
import { AppError } from '../../../errors.ts';
import { snakeToCamelKeys } from '../../../domain/validation.ts';
import type { BulkLine } from '../../../domain/memory/report-bulk.ts';
import { checkLine } from '../../operations/report-bulk.ts';
import { bulkFormat, readBulkBody } from './body.ts';

/**
 * The input of POST /risk_api/report/bulk/ (operations/report-bulk.ts) read from its body: NDJSON or CSV, up to
 * 10,000 reports and 5 MB (both bounds checked as the body streams in), each line checked alone when it is written.
 */
export async function readBulkLines(req: IncomingMessage): Promise<BulkLine[]> {
  if (req.headers['idempotency-key'] !== undefined) {
    throw new AppError(
      'invalid_request',
      'A bulk report takes an idempotency key per line (the idempotency_key field or column), not the Idempotency-Key header.',
      [{ field: 'Idempotency-Key', message: 'is not accepted here: give each line its idempotency_key' }],
    );
  }
  const raw = await readBulkBody(req, bulkFormat(req.headers['content-type']));
  return raw.map((l) => ({
    line: l.line,
    check: () => checkLine(snakeToCamelKeys(l.fields()) as Record<string, unknown>),
  }));
}
