import type { WebDeps } from './context.ts';
import { Mailer } from '../../domain/mail/outbox.ts';
import { smtpTransport } from '../../domain/mail/smtp.ts';
import { PayPalProvider } from '../../domain/billing/paypal.ts';
import { ProviderCancellations } from '../../domain/billing/cancellations.ts';
import { createControlPlane } from './control-plane.ts';
import { webhookHandler } from './webhook.ts';

/** Builds the control plane and its mailer and payment provider from the configuration. */
export function createWorkspaceServer(d: Omit<WebDeps, 'billing' | 'mailer'>) {
  const { services, config, log } = d;
  const provider = config.paypal ? new PayPalProvider(config.paypal) : null; // throws on an unreadable PAYPAL_CERT_CA_FILE
  const mailer = new Mailer(services.prisma, config.smtpUrl ? smtpTransport(config.smtpUrl) : null, config.mailFrom, log);
  mailer.start();
  const cancellations = provider ? new ProviderCancellations(services.prisma, provider, log) : null;
  cancellations?.start();
  const deps: WebDeps = {
    ...d, mailer,
    billing: {
      prisma: services.prisma, provider, mailer, cancellations,
      counters: services.counters, tiers: services.tiers, baseUrl: config.baseUrl, log,
      tierChanged: async () => {
        d.verifier.invalidate();
        await d.announce?.('all').catch((e) => log.warn('tier change announce failed', { err: e }));
      },
    },
  };
  return {
    deps,
    controlPlane: createControlPlane(deps),
    webhook: webhookHandler(deps),
    close: async () => { await cancellations?.stop(); await mailer.stop(); },
  };
}
