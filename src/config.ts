import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * Every environment variable the service reads, parsed once at start. Nothing else in the
 * code reads process.env: pass the Config along instead.
 */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  DATABASE_PREPARED_STATEMENTS: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('true')
    .transform((v) => v === 'true'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  REDIS_CLUSTER_NODES: z
    .string()
    .transform((v, ctx) => {
      const nodes = parseClusterNodes(v);
      if (typeof nodes === 'string') {
        ctx.addIssue({ code: 'custom', message: nodes });
        return z.NEVER;
      }
      return nodes;
    })
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,32}$/, 'must be 1-32 characters of A-Z a-z 0-9 : _ . -')
    .default('risk'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  API_KEY_PEPPER: z.string().min(32, 'must be at least 32 characters').optional(),
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  PUBLICATION_REFRESH_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  PUBLISH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400_000)
    .default(3_600_000),
  /** Distinct requesters a 10-minute window needs to be a community spike (docs/risk-model.md#community-signal). */
  SPIKE_MIN_REQUESTERS: z.coerce.number().int().min(1).max(1_000).default(3),
  /** How often each process runs watch detection (docs/watches.md); 0 = never (tests drive it themselves). */
  WATCH_DETECTION_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  PUBLICATIONS_KEPT: z.coerce.number().int().min(1).max(100).default(3),
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], {
          error: 'must be a comma-separated list of IP addresses or CIDR blocks',
        }),
      ),
    ),
  MAXMIND_CITY_MMDB: z.string().min(1).optional(),
  /** Where the network index's image is kept (docs/operations.md); 'off': built from the data files at every start. */
  NETWORK_IMAGE_DIR: z.string().min(1).optional(),
  MAXMIND_ASN_MMDB: z.string().min(1).optional(),
  MAXMIND_ISP_MMDB: z.string().min(1).optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(0),
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,256}$/, 'must be 16-256 visible ASCII characters (no spaces)')
    .optional(),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(10_000),
  HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(1_000).default(50),
  // Feeds fetched from URLs (docs/operations.md, "Feeds from URLs").
  FEED_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  FEED_FETCH_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(1_800_000).default(120_000),
  FEED_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  WORKERS: z
    .union([z.literal('auto'), z.coerce.number().int().min(1).max(256)], {
      error: 'must be a whole number from 1 to 256, or auto',
    })
    .default(1),
  // Control plane (docs/control-plane.md).
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('risk-api <no-reply@localhost>'),
  PAYPAL_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
  PAYPAL_CLIENT_ID: z.string().min(1).optional(),
  PAYPAL_CLIENT_SECRET: z.string().min(1).optional(),
  PAYPAL_WEBHOOK_ID: z.string().min(1).optional(),
  PAYPAL_PLANS: z
    .string()
    .regex(
      /^\s*[a-z0-9_-]+=[A-Za-z0-9_-]+\s*(,\s*[a-z0-9_-]+=[A-Za-z0-9_-]+\s*)*$/,
      'must be tier=PLAN_ID pairs separated by commas',
    )
    .optional(),
  PAYPAL_CERT_HOSTS: z.string().default('api.paypal.com,api.sandbox.paypal.com'),
  PAYPAL_CERT_CA_FILE: z.string().min(1).optional(),
  // Whether /graphql answers introspection (__schema, __type) without an API key; it needs one by default.
  GRAPHQL_PUBLIC_INTROSPECTION: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  // Browser origins granted (non-credentialed) CORS on /graphql; none by default.
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          z.string().refine(isOrigin, {
            error:
              'must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only: no path, no *)',
          }),
        )
        .transform((list) => list.map((o) => new URL(o).origin)),
    ),
  // Agent protocol (README "Agent protocol (MCP)"): browser origins allowed to call /mcp besides BASE_URL's own.
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^https?:\/\/[^/?#\s]+$/,
            'must be a comma-separated list of origins such as https://app.example.com (scheme://host[:port], no path)',
          ),
      ),
    ),
  // Outbound webhooks (docs/webhooks.md): hosts exempt from the private-address refusal, which may also take http://.
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) =>
          x
            .trim()
            .toLowerCase()
            .replace(/^\[(.*)\]$/, '$1'),
        )
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^[a-z0-9.:-]{1,253}$/,
            'must be a comma-separated list of host names or IP addresses (no scheme, port or path)',
          ),
      ),
    ),
});

/** The names of every variable above (the container files are checked against them: test/unit/container-files.test.ts). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** An exact web origin (http/https, host, optional port; a trailing slash allowed), nothing more. */
function isOrigin(v: string): boolean {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return false;
  }
  return (
    (u.protocol === 'https:' || u.protocol === 'http:') &&
    !u.username &&
    !u.password &&
    u.pathname === '/' &&
    !u.search &&
    !u.hash &&
    !v.endsWith('?') &&
    !v.endsWith('#')
  );
}

const PAYPAL_VARS = [
  'PAYPAL_API_BASE',
  'PAYPAL_CLIENT_ID',
  'PAYPAL_CLIENT_SECRET',
  'PAYPAL_WEBHOOK_ID',
  'PAYPAL_PLANS',
] as const;

/** PayPal is configured all together or not at all: a half-configured provider is a mistake worth stopping for. */
/**
 * REDIS_CLUSTER_NODES: the seed nodes of a Redis Cluster, comma-separated, each `host:port` or a
 * `redis://[user[:password]@]host:port` / `rediss://…` URL (credentials and TLS apply to every node). The client
 * learns the other nodes from any one that answers. Returns the nodes as URLs, or what is wrong.
 */
export function parseClusterNodes(value: string): string[] | string {
  const entries = value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (entries.length === 0) return 'must name at least one host:port';
  const nodes: string[] = [];
  for (const entry of entries) {
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `redis://${entry}`;
    let url: URL;
    try {
      url = new URL(withScheme);
    } catch {
      return `not host:port or a redis:// URL: ${entry.replace(/\/\/[^@/]*@/, '//***@')}`;
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return `must be host:port or redis(s):// URLs`;
    if (!url.hostname || !url.port) return `each node needs a host and a port`;
    if ((url.pathname && url.pathname !== '/') || url.search)
      return 'a cluster node URL has no database number or options';
    nodes.push(withScheme);
  }
  return nodes;
}

function redisProblems(env: Record<string, unknown>): string[] {
  return env.REDIS_URL && env.REDIS_CLUSTER_NODES
    ? ['REDIS_CLUSTER_NODES: set either REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a cluster), not both']
    : [];
}

function paypalProblems(env: Record<string, unknown>): string[] {
  const set = PAYPAL_VARS.filter((v) => env[v] !== undefined);
  if (set.length === 0 || set.length === PAYPAL_VARS.length) return [];
  return PAYPAL_VARS.filter((v) => env[v] === undefined).map((v) => `${v}: required when any PAYPAL_* variable is set`);
}

/** Network data options for loadNetworkData, from the MaxMind settings. */
export function networkOptions(c: Config) {
  return {
    ...(c.maxmind.city ? { maxmindCityMmdb: c.maxmind.city } : {}),
    ...(c.maxmind.asn ? { maxmindAsnMmdb: c.maxmind.asn } : {}),
    ...(c.maxmind.isp ? { maxmindIspMmdb: c.maxmind.isp } : {}),
  };
}

export type Config = {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePreparedStatements: boolean;
  redisUrl: string | undefined;
  /** Seed nodes of a Redis Cluster (URLs), instead of REDIS_URL's single Redis. */
  redisClusterNodes: string[] | undefined;
  redisKeyPrefix: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  apiKeyPepper: string | undefined;
  keyCacheTtlMs: number;
  maxBodyBytes: number;
  shutdownGraceMs: number;
  /** On SIGTERM, how long /readyz answers 503 while every request is still served, before the drain starts. */
  drainDelayMs: number;
  /** Set: GET /metrics needs `Authorization: Bearer <token>` (from anywhere); unset: loopback clients only. */
  metricsToken: string | undefined;
  /** A request (headers and body) must have arrived within this; else 408 and the connection is closed. */
  requestTimeoutMs: number;
  /** How far the JavaScript heap may grow past its live size before a full collection (0 = V8's own rule). */
  heapGrowthPercent: number;
  /** Feeds from URLs: the limits of one download, and how often the server looks for feeds due. */
  feedFetch: { maxBytes: number; timeoutMs: number; checkIntervalMs: number };
  /** Server processes on the port (node:cluster): a number, or every available core ('auto' resolved here). */
  workers: number;
  trustedProxies: string[];
  /** Origins granted CORS on /graphql (normalised, e.g. https://app.example.com); empty: no grant to any origin. */
  corsOrigins: string[];
  /** /graphql answers introspection without an API key (default: only with one). */
  publicIntrospection: boolean;
  /** Operator-supplied MaxMind files replacing the packaged data (see README). */
  maxmind: { city?: string; asn?: string; isp?: string };
  /** Where the network index's image is read from and written to (decision 0032); null: not kept. */
  networkImageDir: string | null;
  publicationRefreshMs: number;
  publishIntervalMs: number;
  watchDetectionMs: number;
  spikeMinRequesters: number;
  publicationsKept: number;
  sessionTtlMs: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Origins (scheme://host[:port]) allowed to call /mcp from a browser, besides BASE_URL's; requests without Origin always pass. */
  mcpAllowedOrigins: string[];
  /** Webhook target hosts (lowercase, IPv6 without brackets) the operator allows even on private addresses, and over http. */
  webhookAllowedHosts: string[];
  /** null: no payment provider configured (the subscription page says so). */
  paypal: null | {
    apiBase: string;
    clientId: string;
    clientSecret: string;
    webhookId: string;
    plans: Record<string, string>;
    certHosts: string[];
    /** Extra trust anchors (PEM) for the webhook certificate chain, besides Node's bundled roots. */
    certCaFile: string | undefined;
  };
};

/** Every invalid setting, one line each: the variable, what it must be, and the fix (the value itself is never echoed:
 *  it may be a secret). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems
        .map((p) => {
          const name = p.slice(0, p.indexOf(':'));
          return `${p}. Fix: correct ${name} or unset it for its default (every variable: docs/operations.md#configuration)`;
        })
        .join('\n'),
    );
    this.name = 'ConfigError';
  }
}

/** A number setting's problem in words (zod says "expected number, received NaN"), from the field's own bounds. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const name = String(issue.path[0]);
  const field = (envSchema.shape as Record<string, z.ZodType>)[name];
  const inner = field instanceof z.ZodDefault || field instanceof z.ZodOptional ? field.unwrap() : field;
  if (inner instanceof z.ZodNumber && ['invalid_type', 'too_small', 'too_big'].includes(issue.code)) {
    const whole = inner.isInt ? 'a whole number' : 'a number';
    return `${name}: must be ${whole} from ${inner.minValue} to ${inner.maxValue}`;
  }
  return `${issue.path.join('.')}: ${issue.message}`;
}

/** Parses the environment; throws one ConfigError listing every problem at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map(describeIssue)),
    ...paypalProblems(present),
    ...redisProblems(present),
  ];
  if (!parsed.success || problems.length) throw new ConfigError(problems);
  const e = parsed.data;
  const shownHost = e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.BASE_URL ?? `http://${shownHost}:${e.PORT}`).replace(/\/+$/, ''),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    logLevel: e.LOG_LEVEL,
    apiKeyPepper: e.API_KEY_PEPPER,
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    drainDelayMs: e.DRAIN_DELAY_MS,
    metricsToken: e.METRICS_TOKEN,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    heapGrowthPercent: e.HEAP_GROWTH_PERCENT,
    feedFetch: {
      maxBytes: e.FEED_FETCH_MAX_BYTES,
      timeoutMs: e.FEED_FETCH_TIMEOUT_MS,
      checkIntervalMs: e.FEED_CHECK_INTERVAL_MS,
    },
    workers: e.WORKERS === 'auto' ? os.availableParallelism() : e.WORKERS,
    trustedProxies: e.TRUSTED_PROXIES,
    corsOrigins: e.CORS_ORIGINS,
    publicIntrospection: e.GRAPHQL_PUBLIC_INTROSPECTION,
    maxmind: {
      ...(e.MAXMIND_CITY_MMDB ? { city: path.resolve(e.MAXMIND_CITY_MMDB) } : {}),
      ...(e.MAXMIND_ASN_MMDB ? { asn: path.resolve(e.MAXMIND_ASN_MMDB) } : {}),
      ...(e.MAXMIND_ISP_MMDB ? { isp: path.resolve(e.MAXMIND_ISP_MMDB) } : {}),
    },
    networkImageDir:
      e.NETWORK_IMAGE_DIR === 'off'
        ? null
        : path.resolve(e.NETWORK_IMAGE_DIR ?? path.join(e.DATA_DIR, 'network-image')),
    publicationRefreshMs: e.PUBLICATION_REFRESH_MS,
    publishIntervalMs: e.PUBLISH_INTERVAL_MS,
    watchDetectionMs: e.WATCH_DETECTION_MS,
    spikeMinRequesters: e.SPIKE_MIN_REQUESTERS,
    publicationsKept: e.PUBLICATIONS_KEPT,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3_600_000,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS.map((o) => new URL(o).origin),
    webhookAllowedHosts: e.WEBHOOK_ALLOWED_HOSTS,
    paypal:
      e.PAYPAL_API_BASE && e.PAYPAL_CLIENT_ID && e.PAYPAL_CLIENT_SECRET && e.PAYPAL_WEBHOOK_ID && e.PAYPAL_PLANS
        ? {
            apiBase: e.PAYPAL_API_BASE.replace(/\/+$/, ''),
            clientId: e.PAYPAL_CLIENT_ID,
            clientSecret: e.PAYPAL_CLIENT_SECRET,
            webhookId: e.PAYPAL_WEBHOOK_ID,
            plans: Object.fromEntries(
              e.PAYPAL_PLANS.split(',').map((pair) => pair.trim().split('=') as [string, string]),
            ),
            certHosts: e.PAYPAL_CERT_HOSTS.split(',')
              .map((h) => h.trim().toLowerCase())
              .filter(Boolean),
            certCaFile: e.PAYPAL_CERT_CA_FILE ? path.resolve(e.PAYPAL_CERT_CA_FILE) : undefined,
          }
        : null,
  };
}
