/**
 * The deployment's model report (quality/model-report.ts, deployment scope, default period and window) as gauges on
 * /metrics. It is computed in the background, a while after start and then every MODEL_REPORT_EVERY_MS, in turns that
 * hand the event loop back; a scrape reads the last result and never starts the work.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { modelReport, type ModelReport } from '../quality/model-report.ts';

export const MODEL_REPORT_EVERY_MS = 6 * 3_600_000;
const FIRST_AFTER_MS = 60_000;

/** Registers the gauges now (they read the last report) and returns how to start the background report. */
export function registerModelGauges(metrics: Metrics): {
  start(deps: { prisma: PrismaClient; network: NetworkIndex; log: Logger }): () => void;
} {
  let last: ModelReport | null = null;
  registerGauges(metrics, () => last);
  return {
    start(deps) {
      let running = false;
      const run = () => {
        if (running) return;
        running = true;
        modelReport(deps.prisma, deps.network)
          .then((r) => {
            last = r;
          })
          .catch((e) => deps.log.warn('model report for the metrics failed; the gauges keep the last one', { err: e }))
          .finally(() => {
            running = false;
          });
      };
      const first = setTimeout(run, FIRST_AFTER_MS);
      const every = setInterval(run, MODEL_REPORT_EVERY_MS);
      first.unref();
      every.unref();
      return () => {
        clearTimeout(first);
        clearInterval(every);
      };
    },
  };
}

function registerGauges(metrics: Metrics, read: () => ModelReport | null): void {
  metrics.stateGauge(
    'risk_model_level_ips',
    'IPs the model placed at each level at their sample instant, in the last model report (30 days).',
    ['level'],
    'first',
    () => read()?.levels.map((l) => [{ level: l.level }, l.scored]) ?? [],
  );
  metrics.stateGauge(
    'risk_model_level_precision',
    'Share of those IPs reported bad within 7 days after (levels with no IP are left out).',
    ['level'],
    'first',
    () => read()?.levels.flatMap((l) => (l.precision === null ? [] : [[{ level: l.level }, l.precision]])) ?? [],
  );
  metrics.stateGauge(
    'risk_model_early_warning_share',
    'Of the IPs first reported bad in the 7 days after their sample instant, the share already medium or higher.',
    [],
    'first',
    () => {
      const share = read()?.earlyWarning.share;
      return share == null ? [] : [[{}, share]];
    },
  );
  metrics.stateGauge(
    'risk_model_auc',
    'ROC AUC of the score against "reported bad within 7 days", in the last model report.',
    [],
    'first',
    () => {
      const auc = read()?.auc;
      return auc == null ? [] : [[{}, auc]];
    },
  );
}
