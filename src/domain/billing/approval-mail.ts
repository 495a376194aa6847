import type { MailMessage } from '../mail/outbox.ts';

/** The e-mail carrying the provider's approval URL (plain text: it must survive every mail client). */
export function approvalMail(
  to: string,
  p: { orderCode: string; tierName: string; dailyLimit: number; approvalUrl: string; provider: string },
): MailMessage {
  return {
    to,
    subject: `Approve your ${p.tierName} API subscription (order ${p.orderCode})`,
    text: [
      `You requested the ${p.tierName} API subscription tier (${p.dailyLimit} score calls per day).`,
      '',
      `Order: ${p.orderCode}`,
      '',
      `Approve the subscription at ${p.provider}:`,
      p.approvalUrl,
      '',
      'The tier applies as soon as the provider confirms the approval.',
      'If you did not request this, ignore this message.',
    ].join('\n'),
  };
}
