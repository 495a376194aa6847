import { describe, expect, it } from 'vitest';
import { MAX_WAITING, MODEL_REPORT_FRESH_MS, ModelReportRuns } from '../../src/domain/quality/model-report-runs.ts';
import type { ModelReport } from '../../src/domain/quality/model-report.ts';

const reportOf = (workspace: string): ModelReport => ({
  workspace,
  sinceDays: 30,
  windowDays: 7,
  instants: [],
  ips: 0,
  levels: [],
  earlyWarning: { cases: 0, warned: 0, share: null },
  auc: null,
});

/** Reports that finish when the test says so, so the order of work can be watched. */
function controlled() {
  const started: number[] = [];
  const finish = new Map<number, (r: ModelReport | Error) => void>();
  const compute = (id: number) =>
    new Promise<ModelReport>((resolve, reject) => {
      started.push(id);
      finish.set(id, (r) => (r instanceof Error ? reject(r) : resolve(r)));
    });
  return { started, finish, compute };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('model reports for the Model page', () => {
  it('computes one report at a time, then answers from the kept one until it is an hour old', async () => {
    let now = 1_000_000;
    const c = controlled();
    const runs = new ModelReportRuns(c.compute, undefined, () => now);
    expect(runs.request(1)).toEqual({ state: 'computing' });
    expect(runs.request(2)).toEqual({ state: 'computing' });
    expect(runs.request(1)).toEqual({ state: 'computing' }); // not started twice
    expect(c.started).toEqual([1]); // 2 waits for 1
    c.finish.get(1)!(reportOf('one'));
    await settle();
    expect(c.started).toEqual([1, 2]);
    const ready = runs.request(1);
    expect(ready.state).toBe('ready');
    expect(ready.state === 'ready' && ready.report.workspace).toBe('one');
    now += MODEL_REPORT_FRESH_MS - 1;
    expect(runs.request(1).state).toBe('ready');
    now += 1;
    c.finish.get(2)!(reportOf('two'));
    await settle();
    expect(runs.request(1)).toEqual({ state: 'computing' }); // stale: computed again
    expect(c.started).toEqual([1, 2, 1]);
  });

  it('bounds the queue and reports a failure for a minute before trying again', async () => {
    let now = 0;
    const c = controlled();
    const errors: number[] = [];
    const runs = new ModelReportRuns(
      c.compute,
      (id) => errors.push(id),
      () => now,
    );
    for (let id = 1; id <= MAX_WAITING + 1; id++) expect(runs.request(id).state).toBe('computing');
    expect(runs.request(10_000)).toEqual({ state: 'busy' });
    c.finish.get(1)!(new Error('database gone'));
    await settle();
    expect(errors).toEqual([1]);
    expect(runs.request(1).state).toBe('failed');
    now += 60_000;
    expect(runs.request(1).state).toBe('computing');
  });
});
