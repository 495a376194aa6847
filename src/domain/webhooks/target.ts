import { isIP } from 'node:net';
import { refusedAddress } from './address-guard.ts';
import { hostOf } from './send.ts';

/**
 * Why a URL may not be an endpoint, checked when it is set (the delivery checks the resolved address again each time):
 * http and private or loopback IP literals only for hosts the operator allows.
 */
export function targetProblem(url: string, allowedHosts: readonly string[]): string | null {
  const u = new URL(url);
  const host = hostOf(u);
  if (allowedHosts.includes(host)) return null;
  if (u.protocol !== 'https:')
    return 'must be an https:// URL (http:// only for hosts the operator allows in WEBHOOK_ALLOWED_HOSTS)';
  // A trailing dot names the same host as a fully qualified name (`localhost.` is localhost).
  const name = host.replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'must not point to localhost';
  const why = isIP(host) ? refusedAddress(host) : null;
  return why ? `must point to a public address: ${why}` : null;
}
