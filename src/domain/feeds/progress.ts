/**
 * Progress of a long feed import on stderr. Rendering is pure; the writer decides WHEN to write: only once
 * the file has proved long (`minLines`, default 5,000: short files finish before progress helps). On a
 * terminal it redraws one bar with "\r" at most every `minIntervalMs`, and ends the line when done. When
 * stderr is a file or a pipe (a cron job, systemd's journal, CI), it writes whole lines instead, one per
 * tenth of the file (every LINES_PER_STEP lines when the size is unknown, as with a pipe), and a last one
 * when done: a log gets a bounded number of lines, each readable on its own.
 */

export type ProgressState = { linesRead: number; bytesRead: number; totalBytes: number };

/** Lines between two progress lines when the total size is unknown (a pipe or a FIFO reports size 0). */
const LINES_PER_STEP = 100_000;

/** The fraction read, or null when the total size is unknown. */
function fractionOf(state: ProgressState): number | null {
  return state.totalBytes > 0 ? Math.min(1, Math.max(0, state.bytesRead / state.totalBytes)) : null;
}

/** "[##########----------]  50%  12,345 lines" fitted into `width` columns (no bar when the size is unknown). */
export function renderProgressBar(state: ProgressState, width = 60): string {
  const fraction = fractionOf(state);
  const lines = `${state.linesRead.toLocaleString('en-US')} lines`;
  if (fraction === null) return `${lines} read`;
  const tail = ` ${`${Math.floor(fraction * 100)}%`.padStart(4)}  ${lines}`;
  const barWidth = Math.max(10, width - tail.length - 2);
  const filled = Math.round(fraction * barWidth);
  return `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]${tail}`;
}

/** "reading list.txt: 40% (12,345 lines)": one log line. */
export function renderProgressLine(label: string, state: ProgressState): string {
  const fraction = fractionOf(state);
  const lines = `${state.linesRead.toLocaleString('en-US')} lines`;
  return fraction === null ? `${label}: ${lines}` : `${label}: ${Math.floor(fraction * 100)}% (${lines})`;
}

export type ProgressStream = { write(text: string): unknown; isTTY?: boolean; columns?: number };

export type ProgressWriter = {
  update(linesRead: number, bytesRead: number, totalBytes: number): void;
  /** Writes the final state (if progress was shown) and ends the line. */
  done(): void;
};

export function createProgressWriter(
  stream: ProgressStream,
  opts: { label?: string; minLines?: number; minIntervalMs?: number; clock?: () => number } = {},
): ProgressWriter {
  const label = opts.label ?? 'reading';
  const minLines = opts.minLines ?? 5000;
  const minInterval = opts.minIntervalMs ?? 100;
  const clock = opts.clock ?? Date.now;
  let shown = false;
  let lastDraw = -Infinity;
  let lastStep = -1; // the step of the last log line (tenths of the file, or LINES_PER_STEP lines)
  let linesAtLastLine = -1;
  let last: ProgressState = { linesRead: 0, bytesRead: 0, totalBytes: 0 };
  const step = (s: ProgressState) => {
    const fraction = fractionOf(s);
    return fraction === null ? Math.floor(s.linesRead / LINES_PER_STEP) : Math.floor(fraction * 10);
  };
  const draw = () => {
    const width = Math.min(100, Math.max(30, (stream.columns ?? 80) - 1));
    stream.write(`\r${renderProgressBar(last, width)}`);
    shown = true;
    lastDraw = clock();
  };
  const line = () => {
    stream.write(`${renderProgressLine(label, last)}\n`);
    shown = true;
    lastStep = step(last);
    linesAtLastLine = last.linesRead;
  };
  return {
    update(linesRead, bytesRead, totalBytes) {
      last = { linesRead, bytesRead, totalBytes };
      if (linesRead < minLines) return;
      if (!stream.isTTY) {
        if (step(last) > lastStep) line();
        return;
      }
      if (clock() - lastDraw >= minInterval) draw();
    },
    done() {
      if (!shown) return;
      if (!stream.isTTY) {
        if (last.linesRead !== linesAtLastLine) line(); // the final count, unless the last line already said it
        return;
      }
      draw();
      stream.write('\n');
    },
  };
}
