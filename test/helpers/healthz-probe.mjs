// Probes GET <url>/healthz from its own process until its stdin closes, then prints one JSON line:
// for each probe, [wall-clock ms, ms of CPU the server's main thread ran meanwhile]. A process of its
// own, so neither the server's event loop nor the test's (which receives the large answers) delays
// the probe. One kept-alive connection, opened before the first timed probe (no TCP set-up timed).
// Usage: node healthz-probe.mjs <server url> <server pid> [interval ms]
import http from 'node:http';
import { readFileSync } from 'node:fs';

const url = new URL('/healthz', process.argv[2]);
const pid = Number(process.argv[3]);
const intervalMs = Number(process.argv[4] ?? 10);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const ticksPerMs = 100 / 1000; // USER_HZ: /proc reports CPU time in 1/100 s
const probes = [];
let stopping = false;
process.stdin.on('end', () => { stopping = true; });
process.stdin.resume();

/** CPU time (ms) of the server's main thread, whose id is the process id. */
function mainThreadCpuMs() {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) "
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs; // utime, stime
}

function probe() {
  return new Promise((resolve, reject) => {
    const cpu = mainThreadCpuMs();
    const started = performance.now();
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve([performance.now() - started, mainThreadCpuMs() - cpu]) : reject(new Error(`healthz answered ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

await probe(); // the connection, warmed
process.stdout.write('ready\n');
while (!stopping) {
  probes.push(await probe());
  await new Promise((resolve) => setTimeout(resolve, intervalMs));
}
agent.destroy();
process.stdout.write(`${JSON.stringify(probes)}\n`);
