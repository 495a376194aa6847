import nodemailer from 'nodemailer';
import type { MailTransport } from './outbox.ts';

/** SMTP delivery through nodemailer (SMTP_URL, e.g. smtps://user:pass@mail.example:465). */
export function smtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport(url);
  return {
    async send(from, m) {
      await transporter.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
    },
    close() {
      transporter.close();
    },
  };
}
