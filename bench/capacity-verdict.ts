/**
 * Whether a capacity run's prediction check stands: only when other work on the machine stayed under `limitPct`
 * of its cores in every measured window. Measured per window (bench/capacity.ts), not guessed from the load
 * average at the start: another job that starts mid-run is caught too.
 */
export type Window = { label: string; workers: number; otherPct: number };

export function verdict(windows: readonly Window[], limitPct: number): { valid: boolean; text: string } {
  const busy = windows.filter((w) => !(w.otherPct <= limitPct)); // NaN (not measured) is busy too
  if (busy.length === 0)
    return {
      valid: true,
      text: `Other work stayed under ${limitPct}% of the machine in every window: the check stands.`,
    };
  const named = busy.map((w) => `${w.label} (WORKERS=${w.workers}, ${Math.round(w.otherPct)}%)`).join(', ');
  return {
    valid: false,
    text: `**Not a valid check**: other work used more than ${limitPct}% of the machine during ${named}; re-run on a quiet machine.`,
  };
}
