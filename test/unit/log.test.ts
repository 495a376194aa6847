import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED_FIELDS, REDACTED_HEADERS, type LogLevel } from '../../src/platform/log.ts';

function capture(level: LogLevel) {
  const lines: string[] = [];
  const log = createLogger(level, (line) => lines.push(line));
  return { log, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, any>) };
}

describe('structured logs (pino)', () => {
  it('writes one JSON object per line: level, ISO time, pid, hostname, the fields, msg', () => {
    const { log, lines, parsed } = capture('info');
    log.info('request', { requestId: 'r1', status: 200 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('}\n')).toBe(true);
    expect(parsed()[0]).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      pid: process.pid,
      hostname: expect.any(String),
      requestId: 'r1',
      status: 200,
      msg: 'request',
    });
  });

  it("keeps an error's type, message and stack, and its cause", () => {
    const { log, parsed } = capture('info');
    log.error('unhandled error', { err: new TypeError('outer', { cause: new RangeError('inner') }) });
    const err = parsed()[0]!.err;
    expect(err.type).toBe('TypeError');
    expect(err.message).toContain('outer');
    expect(err.stack).toMatch(/^TypeError: outer\n\s+at /);
    expect(err.stack).toContain('caused by: RangeError: inner');
  });

  it('censors every field named as a secret, and secret headers in a headers object', () => {
    const { log, lines, parsed } = capture('debug');
    const secret = (name: string) => `SECRET-${name}`;
    const headers = Object.fromEntries(REDACTED_HEADERS.map((n) => [n, secret(`h-${n}`)]));
    log.warn('planted', {
      ...Object.fromEntries([...REDACTED_FIELDS, ...REDACTED_HEADERS].map((n) => [n, secret(n)])),
      headers: { ...headers, accept: 'kept' },
      req: { headers },
      res: { headers },
      keep: 'visible',
    });
    expect(lines.join('')).not.toContain('SECRET-');
    const line = parsed()[0]!;
    expect(line.keep).toBe('visible');
    expect(line.password).toBe('[redacted]');
    expect(line.headers).toEqual({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'set-cookie': '[redacted]',
      'x-api-key': '[redacted]',
      accept: 'kept',
    });
    expect(line.req.headers.cookie).toBe('[redacted]');
  });

  it('writes audit lines at every level but silent, marked audit: true', () => {
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      const { log, parsed } = capture(level);
      log.info('plain');
      log.audit('api key revoked', { prefix: 'rk_abcdefgh' });
      const audit = parsed().filter((l) => l.audit === true);
      expect(audit, level).toEqual([
        expect.objectContaining({ level: 'info', audit: true, msg: 'api key revoked', prefix: 'rk_abcdefgh' }),
      ]);
    }
    const { log, lines } = capture('silent');
    log.audit('x');
    log.error('y');
    expect(lines).toEqual([]);
    expect(log.enabled('error')).toBe(false);
  });
});
