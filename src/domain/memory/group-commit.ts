/**
 * Group commit: concurrent writes share ONE statement per batch. Each statement costs a round
 * trip, a query-compiler pass and a commit (a WAL flush), and under load those, not the rows,
 * were the cost of a write (rating-batch.ts, report-batch.ts).
 *
 * No timer and no added wait: a call starts a statement at once while fewer than `maxInFlight`
 * run; otherwise it queues, and the next statement to finish takes everything queued (up to
 * `maxBatch`). At low load every call is its own statement.
 * Two statements in flight keep most of the gain of batching without letting one slow statement
 * hold every write of the process (docs/decisions/0007-group-commit-for-writes.md).
 *
 * A call is answered only after its statement committed. A statement that fails is retried one
 * input per statement, so an input that cannot be written (its workspace deleted meanwhile) fails
 * alone and never takes the other callers' writes with it. A statement that succeeded is never
 * retried, even when its answers cannot be built: a retry would write twice.
 */
import { inBackground } from '../../platform/background-round.ts';

/** How a batch is written: one statement for all inputs, then one answer per input. */
export type BatchStatement<I, S, R> = {
  /** Writes every input in ONE statement (atomic: when it rejects, nothing was written). */
  write(inputs: readonly I[]): Promise<S>;
  /** The answer of each input, in input order, from what the statement returned; throws when one has none. */
  answers(inputs: readonly I[], stored: S): R[];
};

type Pending<I, R> = { input: I; resolve: (answer: R) => void; reject: (e: unknown) => void };

export class GroupCommit<I, S, R> {
  private queue: Array<Pending<I, R>> = [];
  private inFlight = 0;

  constructor(
    private readonly statement: BatchStatement<I, S, R>,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 256,
    /** Told the size of each batch as its statement starts (the metrics' batch-size histogram). */
    private readonly onBatch?: (size: number) => void,
  ) {}

  write(input: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      void inBackground(() => this.run(batch)).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async run(batch: Array<Pending<I, R>>): Promise<void> {
    const inputs = batch.map((p) => p.input);
    this.onBatch?.(inputs.length);
    let stored: S;
    try {
      stored = await this.statement.write(inputs);
    } catch (e) {
      if (batch.length === 1) {
        batch[0]!.reject(e);
        return;
      }
      // nothing of the batch was written: one statement per input, so only the inputs that cannot be written fail
      await Promise.all(batch.map((p) => writeOne(this.statement, p.input).then(p.resolve, p.reject)));
      return;
    }
    // written: from here a failure is answered as one, never retried
    try {
      const answers = this.statement.answers(inputs, stored);
      for (const [i, p] of batch.entries()) p.resolve(answers[i]!);
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}

/** One input in a statement of its own (a retried row, or a write inside a caller's transaction). */
export async function writeOne<I, S, R>(statement: BatchStatement<I, S, R>, input: I): Promise<R> {
  return statement.answers([input], await statement.write([input]))[0]!;
}
