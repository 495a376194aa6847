import type { Operation } from './operation.ts';
import type { StreamOperation } from './stream.ts';
import { overrideAudit } from './override-audit.ts';
import { reportExport } from './report-export.ts';
import { score } from './score.ts';
import { scoreBatch } from './score-batch.ts';
import { blocklist } from './blocklist.ts';
import { checkBlock } from './check-block.ts';
import { dimensions } from './dimensions.ts';
import { rate } from './rate.ts';
import { report } from './report.ts';
import { reportBulk } from './report-bulk.ts';
import {
  createOverrideOperation,
  expireOverrideOperation,
  listOverridesOperation,
  updateOverrideOperation,
} from './overrides.ts';
import { createWatchOperation, deleteWatchOperation, listWatchesOperation, updateWatchOperation } from './watches.ts';

/**
 * The catalogue: every operation the REST facade, the MCP tools and the OpenAPI document are built from, in the
 * order the document lists them.
 */
export const OPERATIONS = [
  score,
  scoreBatch,
  checkBlock,
  dimensions,
  rate,
  report,
  reportBulk,
  createOverrideOperation,
  listOverridesOperation,
  updateOverrideOperation,
  expireOverrideOperation,
  createWatchOperation,
  listWatchesOperation,
  updateWatchOperation,
  deleteWatchOperation,
  blocklist,
] as unknown as Operation[];

/** The streamed operations (stream.ts): REST routes and OpenAPI paths built from them, listed after the catalogue's. */
export const STREAMS = [overrideAudit, reportExport] as unknown as StreamOperation[];
