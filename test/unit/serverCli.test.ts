// The local API server: the bodies it keeps for bench:panel, and its command line.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../server/server';
import { KEY, NOW, apiUrl, get, range } from './serverHelpers';

describe('local API server: kept bodies and the CLI', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer({ now: NOW });
  });
  after(() => server.close());
  const url = (params: Record<string, string | undefined>, path?: string, base = server.url) => apiUrl(base, params, path);

  describe('kept bodies (cacheBodies, for bench:panel)', () => {
    let keeping: ApiServer;
    const lines: string[] = [];
    before(async () => {
      keeping = await startApiServer({ now: NOW, cacheBodies: 1, rowsPerDay: 300, log: (l) => lines.push(l) });
    });
    after(() => keeping.close());
    const at = (start: string, end: string, extra = '') => `${url(range('acme', start, end), '/api/public/dmarc-records', keeping.url)}${extra}`;

    it('sends an identical request the same bytes again; another range, or faults, render anew; one kept at a time', async () => {
      const a = at('2025-06-01T00:00:00.000Z', '2025-06-03T23:59:59.999Z');
      const b = at('2025-06-04T00:00:00.000Z', '2025-06-04T23:59:59.999Z');
      const first = await get(a);
      assert.equal(first.body.dmarcRecords.length, 900);
      const again = await get(a);
      assert.deepEqual(again.body, first.body);
      assert.deepEqual(keeping.requests.map((r) => r.kept ?? false), [false, true]);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, /^kept body sent: acme\|/);
      // Faults: rendered, and not kept.
      const faulty = await get(`${a}&faults=bareArray`);
      assert.ok(Array.isArray(faulty.body));
      assert.equal(keeping.requests.at(-1)!.kept, undefined);
      assert.deepEqual((await get(a)).body, first.body, 'the kept body is not the faulty one');
      assert.equal(keeping.requests.at(-1)!.kept, true);
      // Another range replaces it.
      assert.equal((await get(b)).body.dmarcRecords.length, 300);
      assert.deepEqual((await get(a)).body, first.body);
      assert.equal(keeping.requests.at(-1)!.kept, undefined, 'rendered anew: only the last body is kept');
    });
  });

  describe('CLI', function () {
    this.timeout(15_000);
    // The bundled CLI (dist-test/server), from the bundled tests and from their sources alike.
    const cli = join(__dirname, '..', '..', 'dist-test', 'server', 'cli.js');

    function run(args: string[]) {
      const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      return { child, out: () => out, err: () => err, exited };
    }

    it('prints the base URL and the demo keys, serves, and stops cleanly on SIGINT', async () => {
      const p = run(['--port', '0', '--rows-per-day', '5', '--now', '2025-06-15T12:00:00Z']);
      try {
        const deadline = Date.now() + 10_000;
        while (!/Press Ctrl\+C/.test(p.out()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())?.[1];
        assert.ok(base, p.out() + p.err());
        assert.ok(p.out().includes(KEY) && p.out().includes('second-key-0b9d4e61a7c3f258'));
        assert.match(p.out(), /hooli\s+Hooli/);
        assert.doesNotMatch(p.out(), /^Story/m, 'no story unless asked');
        const r = await get(url(range('acme', '2025-06-10', '2025-06-10T23:59:59.999Z'), undefined, base));
        assert.equal(r.body.dmarcRecords.length, 5);
      } finally {
        p.child.kill('SIGINT');
      }
      assert.equal(await p.exited, 0);
      assert.match(p.out(), /stopping/);
    });

    it('--story: prints what changed, with dates, and serves it (soylent silent, acme\u2019s new Brevo rows on top of its own)', async () => {
      const p = run(['--port', '0', '--rows-per-day', '5', '--now', '2025-06-15T12:00:00Z', '--story']);
      try {
        const deadline = Date.now() + 10_000;
        while (!/Press Ctrl\+C/.test(p.out()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())?.[1];
        assert.ok(base, p.out() + p.err());
        assert.match(p.out(), /^Story \(--story\)/m);
        assert.match(p.out(), /^ {2}acme +a new sender, Brevo, failing DMARC since 2025-06-14/m);
        assert.match(p.out(), /^ {2}globex +Amazon SES's DKIM broken by a key rotation since 2025-06-09/m);
        assert.match(p.out(), /^ {2}initech +a volume spike: about 4x the usual emails on 2025-06-14 and 2025-06-15/m);
        assert.match(p.out(), /^ {2}soylent +reports stopped: no rows since 2025-06-12/m);
        const day = (org: string) => get(url(range(org, '2025-06-14', '2025-06-14T23:59:59.999Z'), undefined, base));
        assert.deepEqual((await day('soylent')).body.dmarcRecords, []);
        const acme = (await day('acme')).body.dmarcRecords as { source: string }[];
        assert.equal(acme.filter((r) => r.source !== 'Brevo').length, 5);
        assert.ok(acme.some((r) => r.source === 'Brevo'));
      } finally {
        p.child.kill('SIGINT');
      }
      assert.equal(await p.exited, 0);
      const withReports = run(['--port', '0', '--story', '--reports', __dirname]);
      assert.equal(await withReports.exited, 1);
      assert.match(withReports.err(), /--story .*not with --reports/);
    });

    it('a port in use: a clear message suggesting --port, exit 1', async () => {
      const p = run(['--port', String(server.port)]);
      assert.equal(await p.exited, 1);
      assert.match(p.err(), new RegExp(`port ${server.port} is already in use.*--port`));
    });

    it('refuses a non-loopback --host unless told', async () => {
      const p = run(['--port', '0', '--host', '0.0.0.0']);
      assert.equal(await p.exited, 1);
      assert.match(p.err(), /not a loopback address.*--allow-remote/);
    });
  });
});
