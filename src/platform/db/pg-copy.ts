/**
 * PostgreSQL's COPY over node-postgres, without a further dependency: a "submittable" (the object form of
 * `client.query` that pg-cursor and pg-query-stream also use) that speaks the copy sub-protocol itself.
 *
 * - `copyIn` sends rows already in COPY's text format (`COPY … FROM STDIN`): one statement per batch, no parse or
 *   plan of a statement with thousands of parameters, no parameter array per value.
 * - `copyOut` hands each chunk of `COPY … TO STDOUT` to the caller as it arrives, so a table of any size is read
 *   through in constant memory.
 *
 * Both settle after PostgreSQL's ReadyForQuery, so the next statement on the client follows the copy.
 */
import type { Client } from 'pg';

type Connection = {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
};

class CopySubmittable {
  private error: Error | null = null;
  private settled = false;
  rows = 0;

  constructor(
    readonly text: string,
    private readonly done: (err: Error | null, rows: number) => void,
    private readonly chunks: readonly Buffer[] = [],
    private readonly onData?: (chunk: Buffer) => void,
  ) {}

  private settle(err: Error | null) {
    if (this.settled) return;
    this.settled = true;
    this.done(err, this.rows);
  }

  submit(connection: Connection) {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: Connection) {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }
  handleCopyData(msg: { chunk: Buffer }) {
    this.onData?.(msg.chunk);
  }
  handleCommandComplete(msg: { text?: string; rowCount?: number | null }) {
    this.rows = msg.rowCount ?? Number(/\d+$/.exec(msg.text ?? '')?.[0] ?? 0);
  }
  handleError(err: Error) {
    // A statement error is followed by ReadyForQuery; a lost connection is not: settle now in both cases.
    this.error = err;
    this.settle(err);
  }
  handleReadyForQuery() {
    this.settle(this.error);
  }
  handleRowDescription() {}
  handleDataRow() {}
  handleEmptyQuery() {}
  handlePortalSuspended() {}
}

function run(client: Client, make: (done: (err: Error | null, rows: number) => void) => CopySubmittable) {
  return new Promise<number>((resolve, reject) => {
    client.query(make((err, rows) => (err ? reject(err) : resolve(rows))) as never);
  });
}

/** `COPY <target> FROM STDIN` with `lines` (COPY text format, each ending in a newline); resolves to the rows copied. */
export function copyIn(client: Client, statement: string, lines: readonly Buffer[]): Promise<number> {
  return run(client, (done) => new CopySubmittable(statement, done, lines));
}

/** `COPY <source> TO STDOUT`, each chunk to `onData` as it arrives; resolves to the rows copied. */
export function copyOut(client: Client, statement: string, onData: (chunk: Buffer) => void): Promise<number> {
  return run(client, (done) => new CopySubmittable(statement, done, [], onData));
}
