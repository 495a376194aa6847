import type { MailMessage } from '../mail/outbox.ts';

/** To each confirmed account of a workspace whose endpoint was disabled after failing for 3 days. */
export function endpointDisabledMail(
  to: string,
  baseUrl: string,
  e: { id: number; url: string; failingSince: Date; lastError: string; givenUp: number },
): MailMessage {
  return {
    to,
    subject: `risk-api disabled webhook endpoint ${e.id} after 3 days of failed deliveries`,
    text: [
      `Deliveries to your webhook endpoint ${e.id} (${e.url}) have failed since ${e.failingSince.toISOString()}.`,
      `After 3 days of retries the endpoint was disabled and its ${e.givenUp} undelivered event(s) marked failed.`,
      `The last attempt said: ${e.lastError}`,
      '',
      `Each attempt is listed at ${baseUrl}/workspace/webhooks/deliveries?endpoint=${e.id}.`,
      `Fix the receiver, then enable the endpoint at ${baseUrl}/workspace/webhooks; failed deliveries can be re-sent from the deliveries page.`,
    ].join('\n'),
  };
}
