/**
 * A one-line progress bar for long feed imports, drawn on a terminal with "\r". Rendering is a
 * pure function; the writer decides WHEN to draw: only on a TTY, only once the file has proved
 * long (`minLines`, default 5,000: short files finish before a bar helps), at most every
 * `minIntervalMs`, and it always ends the line so later output starts clean.
 */

export type ProgressState = { linesRead: number; bytesRead: number; totalBytes: number };

/** "[##########----------]  50%  12,345 lines" fitted into `width` columns. */
export function renderProgressBar(state: ProgressState, width = 60): string {
  const fraction = state.totalBytes > 0 ? Math.min(1, Math.max(0, state.bytesRead / state.totalBytes)) : 1;
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const tail = ` ${percent}  ${state.linesRead.toLocaleString('en-US')} lines`;
  const barWidth = Math.max(10, width - tail.length - 2);
  const filled = Math.round(fraction * barWidth);
  return `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]${tail}`;
}

export type ProgressStream = { write(text: string): unknown; isTTY?: boolean; columns?: number };

export type ProgressWriter = {
  update(linesRead: number, bytesRead: number, totalBytes: number): void;
  /** Draws the final state (if a bar was shown) and ends the line. */
  done(): void;
};

export function createProgressWriter(
  stream: ProgressStream, opts: { minLines?: number; minIntervalMs?: number; clock?: () => number } = {},
): ProgressWriter {
  const minLines = opts.minLines ?? 5000;
  const minInterval = opts.minIntervalMs ?? 100;
  const clock = opts.clock ?? Date.now;
  let shown = false;
  let lastDraw = -Infinity;
  let last: ProgressState = { linesRead: 0, bytesRead: 0, totalBytes: 0 };
  const draw = () => {
    const width = Math.min(100, Math.max(30, (stream.columns ?? 80) - 1));
    stream.write(`\r${renderProgressBar(last, width)}`);
    shown = true;
    lastDraw = clock();
  };
  return {
    update(linesRead, bytesRead, totalBytes) {
      last = { linesRead, bytesRead, totalBytes };
      if (!stream.isTTY || linesRead < minLines) return;
      if (clock() - lastDraw >= minInterval) draw();
    },
    done() {
      if (!shown) return;
      draw();
      stream.write('\n');
    },
  };
}
