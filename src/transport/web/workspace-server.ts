import type { WebDeps } from './context.ts';
import type { PaymentProvider } from '../../domain/billing/provider.ts';
import type { ProviderCancellations } from '../../domain/billing/cancellations.ts';
import { createControlPlane } from './control-plane.ts';
import { webhookHandler } from './webhook.ts';

/** The control plane and the payment provider's webhook over the mailer and provider the app built. */
export function createWorkspaceServer(
  d: Omit<WebDeps, 'billing'> & {
    provider: PaymentProvider | null;
    cancellations: ProviderCancellations | null;
  },
) {
  const { services, config, log, mailer, provider, cancellations, ...rest } = d;
  const deps: WebDeps = {
    ...rest,
    services,
    config,
    log,
    mailer,
    billing: {
      prisma: services.prisma,
      provider,
      mailer,
      cancellations,
      counters: services.counters,
      tiers: services.tiers,
      baseUrl: config.baseUrl,
      log,
      tierChanged: async () => {
        d.verifier.invalidate();
        await d.announce?.('all').catch((e) => log.warn('tier change announce failed', { err: e }));
      },
    },
  };
  return { deps, controlPlane: createControlPlane(deps), webhook: webhookHandler(deps) };
}
