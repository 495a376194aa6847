/**
 * The peer: CrowdSec's Local API (Debian's `crowdsec` 1.4.6) run alone (`crowdsec -no-cs -no-capi`)
 * from a temp directory of its own (config, SQLite database, logs), the package's settings otherwise
 * (its log levels included: it logs every request at info, as installed). Seeded with one `ban`
 * decision per bench IP through `cscli decisions import`, read by a bouncer key from
 * `cscli bouncers add`; the bench then loads `GET /v1/decisions?ip=…` like any other row.
 * Null when `crowdsec`/`cscli` are not installed (the row is skipped with a note).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, startProcess, stop, waitReady, type Child } from './children.ts';

const run = promisify(execFile);
const CROWDSEC = '/usr/bin/crowdsec';
const CSCLI = '/usr/bin/cscli';

export type Peer = {
  child: Child;
  baseUrl: string;
  key: string;
  readyMs: number;
  importMs: number;
  version: string;
  remove(): Promise<void>;
};

export function crowdsecInstalled(): boolean {
  return existsSync(CROWDSEC) && existsSync(CSCLI);
}

/** The package's /etc/crowdsec/config.yaml with every path that is written moved to `dir`, the LAPI on `port`, no Prometheus. */
function configYaml(dir: string, port: number): string {
  return `common:
  daemonize: false
  log_media: file
  log_level: info
  log_dir: ${dir}/
  working_dir: .
config_paths:
  config_dir: /etc/crowdsec/
  data_dir: ${dir}/
  simulation_path: /etc/crowdsec/simulation.yaml
  hub_dir: /var/lib/crowdsec/hub/
  index_path: /var/lib/crowdsec/hub/.index.json
  notification_dir: /etc/crowdsec/notifications/
  plugin_dir: /usr/lib/crowdsec/plugins/
cscli:
  output: human
db_config:
  log_level: info
  type: sqlite
  db_path: ${dir}/crowdsec.db
  use_wal: true
api:
  client:
    credentials_path: ${dir}/local_api_credentials.yaml
  server:
    log_level: info
    listen_uri: 127.0.0.1:${port}
    profiles_path: /etc/crowdsec/profiles.yaml
    trusted_ips:
      - 127.0.0.1
prometheus:
  enabled: false
`;
}

export async function startCrowdsec(decided: readonly string[]): Promise<Peer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'risk-bench-crowdsec-'));
  let child: Child | null = null;
  const remove = async () => {
    if (child) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const port = await freePort();
    const config = path.join(dir, 'config.yaml');
    writeFileSync(config, configYaml(dir, port));
    const cscli = (...args: string[]) =>
      run(CSCLI, ['-c', config, ...args], { maxBuffer: 16 << 20, timeout: 10 * 60_000 });
    const version =
      (
        await run(CROWDSEC, ['-version']).then(
          (r) => r.stdout + r.stderr,
          (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
        )
      ).match(/version:\s*(\S+)/i)?.[1] ?? 'unknown version';
    // The machine account cscli uses to push decisions through the LAPI, and the bouncer key the load sends.
    await cscli('machines', 'add', 'risk-bench', '--auto', '-f', path.join(dir, 'local_api_credentials.yaml'));
    const key = (await cscli('bouncers', 'add', 'risk-bench', '-o', 'raw')).stdout.trim();
    const spawnedAt = performance.now();
    child = startProcess(
      'crowdsec LAPI',
      CROWDSEC,
      ['-c', config, '-no-cs', '-no-capi'],
      { ...process.env, HOME: dir } as Record<string, string>,
      dir,
    );
    const baseUrl = `http://127.0.0.1:${port}`;
    const readyMs = await waitReady(child, `${baseUrl}/v1/decisions?ip=127.0.0.2`, spawnedAt, 60_000, {
      'x-api-key': key,
    });
    const csv = path.join(dir, 'decisions.csv');
    writeFileSync(
      csv,
      `${['duration,scope,value,reason,type,origin', ...decided.map((ip) => `720h,ip,${ip},risk-bench,ban,cscli`)].join('\n')}\n`,
    );
    const importStarted = performance.now();
    await cscli('decisions', 'import', '-i', csv);
    const importMs = Math.round(performance.now() - importStarted);
    return { child, baseUrl, key, readyMs, importMs, version, remove };
  } catch (e) {
    await remove();
    throw e;
  }
}

/** `count` public-looking IPv4 addresses with no decision (none of `decided`), deterministic. */
export function undecidedIps(decided: readonly string[], count: number, rand: () => number): string[] {
  const taken = new Set(decided);
  const out: string[] = [];
  while (out.length < count) {
    const v = Math.floor(rand() * 4294967296);
    const first = v >>> 24;
    if (first === 0 || first === 10 || first === 127 || first >= 224) continue;
    const ip = `${first}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
    if (!taken.has(ip)) {
      taken.add(ip);
      out.push(ip);
    }
  }
  return out;
}
