import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.ts';

describe('configuration', () => {
  it('has working defaults for the embedded mode', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://127.0.0.1:8080',
      databaseUrl: undefined,
      databasePreparedStatements: true,
      redisUrl: undefined,
      logLevel: 'info',
      heapGrowthPercent: 50,
    });
    expect(c.dataDir).toMatch(/\/data$/);
  });

  it('reads REDIS_CLUSTER_NODES as host:port or redis(s):// URLs, and refuses it beside REDIS_URL', () => {
    expect(
      loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis://u:p%40ss@10.0.0.2:7001,[::1]:7002' }).redisClusterNodes,
    ).toEqual(['redis://10.0.0.1:7000', 'redis://u:p%40ss@10.0.0.2:7001', 'redis://[::1]:7002']);
    const problems = (value: Record<string, string>) => {
      try {
        loadConfig(value);
      } catch (e) {
        return (e as ConfigError).problems.join('\n');
      }
      return '';
    };
    expect(problems({ REDIS_CLUSTER_NODES: '10.0.0.1' })).toMatch(
      /REDIS_CLUSTER_NODES: each node needs a host and a port/,
    );
    expect(problems({ REDIS_CLUSTER_NODES: 'http://10.0.0.1:7000' })).toMatch(/REDIS_CLUSTER_NODES: must be/);
    expect(problems({ REDIS_CLUSTER_NODES: 'redis://10.0.0.1:7000/2' })).toMatch(/no database number/);
    expect(problems({ REDIS_CLUSTER_NODES: ' , ' })).toMatch(/at least one/);
    // A password in a refused value is not echoed back.
    expect(problems({ REDIS_CLUSTER_NODES: 'redis://u:secret@[bad:7000' })).not.toMatch(/secret/);
    expect(problems({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:7000' })).toMatch(/not both/);
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'http://x',
        LOG_LEVEL: 'loud',
        HEAP_GROWTH_PERCENT: '-5',
        DATABASE_PREPARED_STATEMENTS: 'no',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'REDIS_URL',
      'LOG_LEVEL',
      'HEAP_GROWTH_PERCENT',
      'DATABASE_PREPARED_STATEMENTS',
    ])
      expect(problems).toContain(name);
  });

  it('turns prepared statements off only when told so in words', () => {
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements).toBe(false);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'true' }).databasePreparedStatements).toBe(true);
  });

  it('treats empty variables as unset and trims a trailing slash from BASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: '', BASE_URL: 'https://risk.example.com/' })).toMatchObject({
      databaseUrl: undefined,
      baseUrl: 'https://risk.example.com',
    });
  });

  it('reads CORS_ORIGINS as a list of exact origins and refuses anything else (a path, "*", "null", another scheme)', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ CORS_ORIGINS: 'https://App.Example.com/, http://localhost:3000,https://a.example:443' }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:3000', 'https://a.example']);
    for (const bad of [
      '*',
      'null',
      'https://a.example/app',
      'ftp://a.example',
      'a.example',
      'https://user@a.example',
      'https://a.example?x=1',
    ]) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });

  it('reads DRAIN_DELAY_MS (default 0) and METRICS_TOKEN, and names a bad token without echoing it', () => {
    expect(loadConfig({})).toMatchObject({ drainDelayMs: 0, metricsToken: undefined });
    expect(loadConfig({ DRAIN_DELAY_MS: '7000', METRICS_TOKEN: 'a-token-of-20-chars!' })).toMatchObject({
      drainDelayMs: 7000,
      metricsToken: 'a-token-of-20-chars!',
    });
    expect(() => loadConfig({ DRAIN_DELAY_MS: '-1' })).toThrow(/DRAIN_DELAY_MS/);
    expect(() => loadConfig({ DRAIN_DELAY_MS: '300001' })).toThrow(/DRAIN_DELAY_MS/);
    for (const bad of ['short-token', 'has a space in the middle', 'x'.repeat(257), 'nön-ascii-token-value']) {
      let message = '';
      try {
        loadConfig({ METRICS_TOKEN: bad });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, bad).toMatch(/METRICS_TOKEN: must be 16-256 visible ASCII characters/);
      expect(message).not.toContain(bad);
    }
  });
});
