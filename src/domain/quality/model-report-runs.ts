/**
 * The control plane's Model page asks for a workspace's model report; computing one reads the deployment's whole
 * evidence and rebuilds the model at every sample instant, so a page request never waits for it. This holds each
 * workspace's last report for FRESH_MS and computes ONE report at a time in the process, in the background (the
 * report itself hands the event loop back every turn): a page asks, is told "computing", and reloads.
 * Requests beyond MAX_WAITING workspaces are told "busy" instead of queued, so the queue is bounded.
 */
import { inBackground } from '../../platform/background-round.ts';
import type { ModelReport } from './model-report.ts';

export const MODEL_REPORT_FRESH_MS = 3_600_000;
export const MAX_WAITING = 64;

export type ModelReportState =
  | { state: 'ready'; report: ModelReport; computedAt: Date }
  | { state: 'computing' }
  | { state: 'busy' }
  | { state: 'failed'; at: Date };

export class ModelReportRuns {
  private readonly done = new Map<number, { report: ModelReport; computedAt: Date }>();
  private readonly failed = new Map<number, Date>();
  private readonly waiting: number[] = [];
  private running: number | null = null;

  constructor(
    private readonly compute: (workspaceId: number) => Promise<ModelReport>,
    private readonly onError: (workspaceId: number, e: unknown) => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {}

  /** The workspace's last report when fresh; otherwise its computation is started or queued. */
  request(workspaceId: number): ModelReportState {
    const kept = this.done.get(workspaceId);
    const fresh = kept && this.clock() - kept.computedAt.getTime() < MODEL_REPORT_FRESH_MS;
    if (kept && fresh) return { state: 'ready', ...kept };
    const failedAt = this.failed.get(workspaceId);
    if (failedAt && this.clock() - failedAt.getTime() < 60_000) return { state: 'failed', at: failedAt };
    if (this.running === workspaceId || this.waiting.includes(workspaceId)) return { state: 'computing' };
    if (this.waiting.length >= MAX_WAITING) return { state: 'busy' };
    this.waiting.push(workspaceId);
    this.next();
    return { state: 'computing' };
  }

  /** Settles when nothing is running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running !== null) await new Promise((r) => setTimeout(r, 20));
  }

  private next(): void {
    if (this.running !== null) return;
    const id = this.waiting.shift();
    if (id === undefined) return;
    this.running = id;
    inBackground(() => this.compute(id))
      .then((report) => {
        this.done.set(id, { report, computedAt: new Date(this.clock()) });
        this.failed.delete(id);
      })
      .catch((e: unknown) => {
        this.failed.set(id, new Date(this.clock()));
        this.onError(id, e);
      })
      .finally(() => {
        this.running = null;
        this.next();
      });
  }
}
