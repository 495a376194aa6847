import { AppError } from '../../errors.ts';
import { WorkGate } from '../../platform/work-gate.ts';

/**
 * Large score batches take turns: one at a time per process, from the metering to the answer's JSON, on every
 * surface that runs the fixed batch operation (REST score/batch, the MCP tool score_ips). Interleaved, each batch
 * in flight held its 100 answers across many rounds of the event loop, long enough for the young generation to
 * promote them, and the old generation's collections then cost CPU and held the loop for everyone; one at a time,
 * a batch's objects die young (docs/decisions/0024-score-batches-take-turns.md). A batch of fewer than `minItems`
 * items is a few single calls' worth and runs at once, as single calls do: waiting alone for its counter-store
 * round trips would cost it more than its collections. A workspace may have `perCaller` large batches running or
 * waiting: one more is refused at once as rate_limited.
 */
export const SCORE_BATCHES = { running: 1, perCaller: 64, minItems: 10 };

export const scoreBatchGate = new WorkGate(
  SCORE_BATCHES,
  (held) =>
    new AppError(
      'rate_limited',
      `Your workspace already has ${held} score batches running or waiting on this server; send this one when one of them has answered.`,
      undefined,
      { in_flight: { maximum: SCORE_BATCHES.perCaller } },
      { 'retry-after': '1' },
    ),
);

/**
 * Runs `work` in the workspace's turn for a batch of the items `ips` holds as sent (at once when it holds few, or
 * is not a list: the operation then refuses it without work).
 */
export async function inBatchTurn<T>(workspaceId: number, ips: unknown, work: () => Promise<T>): Promise<T> {
  if (!Array.isArray(ips) || ips.length < SCORE_BATCHES.minItems) return work();
  const release = await scoreBatchGate.enter(`workspace:${workspaceId}`);
  try {
    return await work();
  } finally {
    release();
  }
}
