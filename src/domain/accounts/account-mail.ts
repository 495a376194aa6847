import type { MailMessage } from '../mail/outbox.ts';

/** The account e-mails (plain text, like the approval mail): confirmation links and the "already registered" notice. */

const HOURS = (ms: number) => Math.round(ms / 3_600_000);
const confirmUrl = (baseUrl: string, token: string) => `${baseUrl}/workspace/confirm?token=${token}`;

/** To a new address: the link that creates the account. */
export function registrationMail(to: string, baseUrl: string, token: string, ttlMs: number): MailMessage {
  return {
    to,
    subject: 'Confirm your e-mail address to create your risk-api account',
    text: [
      'Someone, probably you, asked to create a risk-api account with this e-mail address.',
      '',
      `To create it, open this link within ${HOURS(ttlMs)} hours and confirm with the password you chose:`,
      confirmUrl(baseUrl, token),
      '',
      'If you did not ask for this, ignore this message: no account is created without the link and that password.',
    ].join('\n'),
  };
}

/** To an address that already has an account: nothing changed; when the address is unconfirmed, its link. */
export function alreadyRegisteredMail(
  to: string,
  baseUrl: string,
  confirmToken: string | null,
  ttlMs: number,
): MailMessage {
  return {
    to,
    subject: 'Someone tried to register with your e-mail address',
    text: [
      'Someone, perhaps you, tried to create a risk-api account with this e-mail address, which already has one.',
      'Nothing was changed: your account, password and keys are as they were.',
      '',
      `To use your account, sign in at ${baseUrl}/workspace/sign-in`,
      ...(confirmToken
        ? [
            '',
            `Your address is not confirmed yet. To confirm it, open this link within ${HOURS(ttlMs)} hours and enter your account's password:`,
            confirmUrl(baseUrl, confirmToken),
          ]
        : []),
      '',
      'If this was not you, you can ignore this message.',
    ].join('\n'),
  };
}

/** To an existing account's unconfirmed address, asked for from the signed-in workspace. */
export function confirmAddressMail(to: string, baseUrl: string, token: string, ttlMs: number): MailMessage {
  return {
    to,
    subject: 'Confirm your e-mail address for risk-api',
    text: [
      'Confirm this e-mail address for your risk-api account, so that approval links and other messages can be sent to it.',
      '',
      `Open this link within ${HOURS(ttlMs)} hours and confirm with your account's password:`,
      confirmUrl(baseUrl, token),
      '',
      'If you did not ask for this, ignore this message.',
    ].join('\n'),
  };
}
