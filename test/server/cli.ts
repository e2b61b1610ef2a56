/**
 * The local DMARC Records API on a fixed port, for trying the extension by hand:
 *
 *   npm run api-server -- --port 8787 [--host 127.0.0.1] [--rows-per-day 40] [--seed 1]
 *                         [--now 2025-06-30] [--fault bareArray,latencyMs=500] [--key KEY=org1,org2]
 *                         [--base-path /dmarc] [--allow-remote] [--reports DIR] [--story]
 *
 * Faults use the names of `Faults` in server.ts (see parseFaults). A base URL of
 * `<url>/_faults/<spec>` applies faults to just the requests made through it.
 */
import { isLoopbackHost } from '../../src/api/url';
import { DEFAULT_KEYS, ORGANIZATIONS } from './data';
import { loadReportFolder } from './reportFolder';
import { organizationFor, parseFaults, startApiServer, type ApiServerOptions, type Faults } from './server';
import { storyLines } from './story';

const USAGE = `Usage: npm run api-server -- [options]
  --port N            port to listen on (default 8787; 0 = any free port)
  --host H            address to bind (default 127.0.0.1; loopback only unless --allow-remote)
  --rows-per-day N    rows per organization per day (default: varies, ~6-80)
  --cache-bodies N    keep the last N bodies served without faults and send them again as they are
                      to an identical request (bench: a hosted API renders off the user's cores)
  --seed N            data seed (default 1)
  --story             tell the demo's week-over-week story in the days before --now: a new failing
                      sender (acme), a pass-rate drop (globex), a volume spike (initech), reports
                      that stop (soylent); see test/server/story.ts
  --now DATE          the server's "today" (ISO 8601; default: now)
  --fault SPEC        faults, e.g. bareArray,rdnsString=0.5,error500=every:3,latencyMs=300 (repeatable)
  --key KEY=ORG,ORG   an API key and the organizations it holds (repeatable; replaces the demo keys)
  --base-path /P      serve the API under a path prefix
  --allow-remote      allow binding a non-loopback address
  --reports DIR       serve the rows of the report files in DIR (.xml, .gz, .zip, .eml, read
                      recursively) instead of sample data; organizations are the policy domains
  --help`;

function fail(msg: string): never {
  console.error(`api-server: ${msg}`);
  process.exit(1);
}

function parseArgs(argv: string[]): { opts: ApiServerOptions; allowRemote: boolean; reports?: string } {
  const opts: ApiServerOptions = { port: 8787 };
  let faults: Faults = {};
  let keys: Record<string, string[]> | undefined;
  let allowRemote = false;
  let reports: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') && !arg.startsWith('--key') && !arg.startsWith('--fault')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) fail(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const num = (): number => {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) fail(`${flag} wants a whole number, got "${v}"`);
      return n;
    };
    switch (flag) {
      case '--port':
        opts.port = num();
        if (opts.port > 65535) fail('--port must be at most 65535');
        break;
      case '--host':
        opts.host = value();
        break;
      case '--rows-per-day':
        opts.rowsPerDay = num();
        break;
      case '--cache-bodies':
        opts.cacheBodies = num();
        opts.log = (line) => console.log(line);
        break;
      case '--seed':
        opts.seed = num();
        break;
      case '--now': {
        const d = new Date(value());
        if (Number.isNaN(d.getTime())) fail('--now wants an ISO 8601 date');
        opts.now = d;
        break;
      }
      case '--fault':
        try {
          faults = { ...faults, ...parseFaults(value()) };
        } catch (e) {
          fail((e as Error).message);
        }
        break;
      case '--key': {
        const v = value();
        const eq = v.indexOf('=');
        if (eq <= 0) fail('--key wants KEY=ORG[,ORG…]');
        keys ??= {};
        keys[v.slice(0, eq)] = v.slice(eq + 1).split(',').filter(Boolean);
        break;
      }
      case '--base-path':
        opts.basePath = value();
        break;
      case '--allow-remote':
        allowRemote = true;
        break;
      case '--story':
        if (inline !== undefined) fail('--story takes no value');
        opts.story = true;
        break;
      case '--reports':
        reports = value();
        break;
      case '--help':
      case '-h':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        fail(`unknown option ${arg}\n${USAGE}`);
    }
  }
  opts.faults = faults;
  if (keys) opts.keys = keys;
  return { opts, allowRemote, reports };
}

async function main(): Promise<void> {
  const { opts, allowRemote, reports } = parseArgs(process.argv.slice(2));
  const host = opts.host ?? '127.0.0.1';
  if (!allowRemote && !isLoopbackHost(host)) fail(`--host ${host} is not a loopback address; add --allow-remote to bind it anyway`);
  if (reports !== undefined && opts.story) fail('--story tells its story on the sample data, not with --reports');
  if (reports !== undefined) {
    const folder = await loadReportFolder(reports).catch((e: Error) => fail(`--reports ${reports}: ${e.message}`));
    opts.reportRows = folder.rowsByDomain;
    opts.keys ??= { [Object.keys(DEFAULT_KEYS)[0]!]: [...folder.rowsByDomain.keys()] };
    console.log(`Report files: ${folder.files} files, ${folder.reports} reports, ${[...folder.rowsByDomain.values()].reduce((n, r) => n + r.length, 0)} rows, ${folder.errors.length} errors`);
    for (const e of folder.errors.slice(0, 10)) console.log(`  ${e.file}: ${e.message}`);
  }

  let server;
  try {
    server = await startApiServer(opts);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE') fail(`port ${opts.port} is already in use. Pick another one with --port, e.g. --port ${(opts.port ?? 8787) + 1} (or --port 0 for any free port).`);
    if (code === 'EADDRNOTAVAIL') fail(`cannot bind ${host}: no such address on this machine.`);
    if (code === 'EACCES') fail(`no permission to listen on port ${opts.port}; use a port above 1023.`);
    throw e;
  }

  const names = new Map(ORGANIZATIONS.map((o) => [o.id, o]));
  console.log(`DMARC Records API (local test server) listening on ${server.url}`);
  console.log(`  endpoint: ${server.url}/api/public/dmarc-records?organizationId=…&startDate=…&endDate=…`);
  if (reports === undefined) console.log(`  data: ${opts.rowsPerDay ?? 'varying'} rows/org/day, seed ${opts.seed ?? 1}, history to ${server.now.toISOString()}`);
  else console.log(`  data: the report files in ${reports}`);
  if (opts.story) {
    console.log('Story (--story), what changed in the last days:');
    for (const line of storyLines(server.now)) console.log(`  ${line}`);
  }
  console.log('Keys and their organizations:');
  for (const [key, orgs] of Object.entries(server.keys)) {
    console.log(`  ${key}`);
    for (const id of orgs) {
      if (reports !== undefined) {
        console.log(`    ${id} (${opts.reportRows?.get(id)?.length ?? 0} rows)`);
        continue;
      }
      const o = names.get(id) ?? organizationFor(id);
      console.log(`    ${id.padEnd(12)} ${o.name} (${o.domains.join(', ')})`);
    }
  }
  const active = Object.entries(opts.faults ?? {});
  if (active.length) console.log(`Faults: ${active.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}`);
  const [key, orgs] = Object.entries(server.keys)[0] ?? [];
  if (key && orgs?.[0]) {
    const first = opts.reportRows?.get(orgs[0])?.[0]?.date;
    const today = (first ?? server.now.toISOString()).slice(0, 10);
    console.log(`Try: curl -H 'Authorization: Bearer ${key}' '${server.url}/api/public/dmarc-records?organizationId=${orgs[0]}&startDate=${today}T00:00:00.000Z&endDate=${today}T23:59:59.999Z'`);
  }
  console.log('Press Ctrl+C to stop.');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1); // a second Ctrl+C: leave at once
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e) => fail(e instanceof Error ? e.message : String(e)));
