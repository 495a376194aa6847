/**
 * Append-only journal of the embedded counter store: one compact JSON array per line.
 *
 * Appends are synchronous writes on an open descriptor and not fsynced: once write() returns, the data is in
 * the OS page cache, so a SIGKILLed process loses nothing (only a machine crash could). Compaction replaces
 * the file with a snapshot atomically (write a temp file, fsync it, rename over the journal), so a crash in
 * the middle leaves either the old journal or the new snapshot, never half of one.
 *
 * One process per file: a second live writer would have its appends lost at the first compaction.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type JournalRecord = unknown[];

export class Journal {
  readonly #file: string;
  #fd: number;
  #appendedBytes = 0;
  #snapshotBytes = 0;

  private constructor(file: string, fd: number) {
    this.#file = file;
    this.#fd = fd;
  }

  /** Opens (creating if needed) and returns every readable record. A torn last line (a write cut short) is
   *  skipped; the caller rewrites a snapshot right after replay, so the torn bytes never precede new lines. */
  static open(file: string): { journal: Journal; records: JournalRecord[] } {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const records: JournalRecord[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        const rec: unknown = JSON.parse(line);
        if (Array.isArray(rec)) records.push(rec);
      } catch {
        // torn or foreign line: skip it rather than refuse to start
      }
    }
    const journal = new Journal(file, openSync(file, 'a', 0o600));
    journal.#snapshotBytes = Buffer.byteLength(text);
    return { journal, records };
  }

  /** One write for all of `records` (a batch costs one system call, not one per record). */
  append(...records: JournalRecord[]): void {
    let lines = '';
    for (const record of records) lines += `${JSON.stringify(record)}\n`;
    this.#appendedBytes += writeSync(this.#fd, lines);
  }

  /** Compaction is due once the appends outweigh both the threshold and the last snapshot, which keeps the
   *  amortised rewrite cost per append constant however large the state grows. */
  shouldCompact(thresholdBytes: number): boolean {
    return this.#appendedBytes > Math.max(thresholdBytes, this.#snapshotBytes);
  }

  /** Atomically replaces the journal with `records` and continues appending after them. */
  rewrite(records: Iterable<JournalRecord>): void {
    const tmp = `${this.#file}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    let bytes = 0;
    try {
      let chunk = '';
      for (const rec of records) {
        chunk += `${JSON.stringify(rec)}\n`;
        if (chunk.length > 1 << 16) {
          bytes += writeSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk) bytes += writeSync(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.#file);
    closeSync(this.#fd);
    this.#fd = openSync(this.#file, 'a', 0o600);
    this.#appendedBytes = 0;
    this.#snapshotBytes = bytes;
  }

  close(): void {
    closeSync(this.#fd);
  }
}
