import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../../src/domain/webhooks/address-guard.ts';
import { sendDelivery } from '../../src/domain/webhooks/send.ts';
import { targetProblem } from '../../src/domain/webhooks/target.ts';

/** The SSRF guard (docs/webhooks.md, "Where deliveries may go"): which addresses a webhook may reach. */
describe('webhook address guard', () => {
  it('refuses private, loopback, link-local, unique-local, CGNAT, multicast, unspecified and reserved addresses', () => {
    for (const ip of [
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '127.255.0.9',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      '240.0.0.1',
      '198.18.0.1',
      '192.0.0.8',
      '192.0.2.1',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      'fec0::1',
      '2001:db8::1',
      '2001:0:4136:e378::1',
    ])
      expect(refusedAddress(ip), ip).not.toBeNull();
  });

  it('refuses IPv6 forms embedding a refused IPv4 address (mapped, compatible, NAT64, 6to4)', () => {
    for (const ip of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::10.1.1.1',
      '2002:c0a8:0101::1',
      '2002:7f00:1::',
    ]) {
      expect(refusedAddress(ip), ip).not.toBeNull();
    }
  });

  it('lets public unicast addresses through, and their IPv6 embeddings', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '100.63.255.255',
      '100.128.0.1',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:0808:0808::1',
    ]) {
      expect(refusedAddress(ip), ip).toBeNull();
    }
  });

  it('checks endpoint URLs when set: https to public hosts; http, localhost and private literals only for allowed hosts', () => {
    expect(targetProblem('https://hooks.example.com/x', [])).toBeNull();
    expect(targetProblem('http://hooks.example.com/x', [])).toMatch(/https/);
    expect(targetProblem('https://10.0.0.5/x', [])).toMatch(/public address/);
    expect(targetProblem('https://[fd00::1]/x', [])).toMatch(/public address/);
    expect(targetProblem('https://localhost:8443/x', [])).toMatch(/localhost/);
    // The audit's: the fully qualified spelling (trailing dot) names the same host.
    for (const url of ['https://localhost.:8443/', 'https://LOCALHOST../x', 'https://api.localhost./']) {
      expect(targetProblem(url, []), url).toMatch(/localhost/);
    }
    expect(targetProblem('http://127.0.0.1:9000/x', ['127.0.0.1'])).toBeNull();
    expect(targetProblem('http://[::1]:9000/x', ['::1'])).toBeNull();
    expect(targetProblem('http://intranet.local/x', ['intranet.local'])).toBeNull();
  });

  it('refuses at send time a name that resolves to a refused address, without connecting', async () => {
    let connections = 0;
    const server = http.createServer((_q, r) => {
      connections++;
      r.end('ok');
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const port = (server.address() as AddressInfo).port;
    try {
      const out = await sendDelivery(`http://localhost:${port}/`, '{}', {}, { allowedHosts: [], userAgent: 'test' });
      expect(out).toMatchObject({ httpStatus: null, error: expect.stringMatching(/^refused: localhost resolves to/) });
      expect(connections).toBe(0);
      const allowed = await sendDelivery(
        `http://localhost:${port}/`,
        '{}',
        {},
        { allowedHosts: ['localhost'], userAgent: 'test' },
      );
      expect(allowed).toMatchObject({ httpStatus: 200, error: null, excerpt: 'ok' });
    } finally {
      server.close();
    }
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const held: http.ServerResponse[] = [];
    const server = http.createServer((_q, r) => {
      held.push(r);
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const port = (server.address() as AddressInfo).port;
    try {
      const out = await sendDelivery(
        `http://127.0.0.1:${port}/`,
        '{}',
        {},
        { allowedHosts: ['127.0.0.1'], userAgent: 'test', timeoutMs: 200 },
      );
      expect(out).toMatchObject({ httpStatus: null, error: 'timed out after 200 ms' });
    } finally {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
