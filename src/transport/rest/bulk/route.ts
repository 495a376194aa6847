import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../../errors.ts';
import { snakeToCamelKeys } from '../../../domain/validation.ts';
import { reportInputSchema } from '../../../domain/memory/schemas.ts';
import { IDEMPOTENCY_KEY } from '../../../domain/memory/idempotency.ts';
import { writeReportLines, type BulkAnswer, type BulkLine, type CheckedLine } from '../../../domain/memory/report-bulk.ts';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../../http/api-key.ts';
import type { ApiDeps } from '../../http/request-context.ts';
import { toAppError } from '../../http/errors.ts';
import { sendJson } from '../../http/send.ts';
import { restInput } from '../input.ts';
import { bulkFormat, readBulkBody } from './body.ts';

/**
 * One line of a bulk report (a body's line, an MCP list item), its wire names already renamed (snakeToCamelKeys,
 * as every REST body is): the single `report`'s body plus an optional idempotency key, checked by `report`'s
 * schema exactly as a REST body is (same details in wire names, same messages).
 */
export function checkLine(fields: Record<string, unknown>): CheckedLine {
  const { idempotencyKey: key, ...report } = fields;
  const keyProblem = key === undefined || key === null || (typeof key === 'string' && IDEMPOTENCY_KEY.test(key))
    ? [] : [{ field: 'idempotency_key', message: 'must be 1-255 printable ASCII characters' }];
  const input = restInput(reportInputSchema, report, 'The report on this line is invalid', keyProblem);
  return { input, idempotencyKey: (key as string | null | undefined) ?? undefined };
}

/** The answer of a bulk write, REST's and MCP's alike. */
export function shapeBulk(answer: BulkAnswer) {
  return {
    ok: true, endpoint: 'report_bulk',
    quota: { counted: false, reason: 'free_endpoint' },
    chunk_size: answer.chunkSize,
    totals: answer.totals,
    results: answer.results,
  };
}

/**
 * POST /risk_api/report/bulk/: NDJSON or CSV, up to 10,000 reports and 5 MB (both bounds checked as the body
 * streams in). Answers 200 with one result per report whatever each line's fate: the lines are independent.
 */
export function reportBulkRoute(deps: ApiDeps) {
  return async (req: IncomingMessage, res: ServerResponse, requestId: string) => {
    const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
    if (req.headers['idempotency-key'] !== undefined) {
      throw new AppError('invalid_request', 'A bulk report takes an idempotency key per line (the idempotency_key field or column), not the Idempotency-Key header.',
        [{ field: 'Idempotency-Key', message: 'is not accepted here: give each line its idempotency_key' }]);
    }
    const raw = await readBulkBody(req, bulkFormat(req.headers['content-type']));
    const lines: BulkLine[] = raw.map((l) => ({ line: l.line, check: () => checkLine(snakeToCamelKeys(l.fields()) as Record<string, unknown>) }));
    const answer = await writeReportLines(deps.services, viewer, lines, (e) => toAppError(e, requestId, deps.log));
    sendJson(res, 200, shapeBulk(answer));
  };
}
