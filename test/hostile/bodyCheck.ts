/**
 * How the hostile suite reads one body two ways and judges it (issue 14): over real HTTP through
 * the client (which streams it) from a loopback server serving the exact bytes, and through the
 * sliced body parser. Problems are counted in the figures (crashes, lost rows) and returned.
 */
import { ApiError, fetchDmarcRecords, type FetchResult } from '../../src/api';
import { parseRecordsBody } from '../../src/api/body';
import type { ByteServer } from './byteServer';
import { KEY, type Body, type Row } from './bodies';
import { lost, tried } from './figures';

const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).join();

/** Everything the client and parser said: searched for the key at the end. */
export const said: string[] = [];

function polluted(): string | undefined {
  const probe = {} as Record<string, unknown>;
  if (probe.polluted !== undefined || Object.getOwnPropertyNames(Object.prototype).join() !== PROTO_KEYS) return 'Object.prototype changed';
  return undefined;
}

/** The verdict for one way of reading a body: problems found (each also counted as lost). */
function judge(b: Body, how: string, result: FetchResult | undefined, error: unknown): string[] {
  const problems: string[] = [];
  const note = (kind: 'crashes' | 'lostRows', what: string): void => {
    problems.push(`${how}: ${what} [${b.why}]`);
    lost(kind, `${how}: ${what} [${b.why}]`);
  };
  if (error !== undefined) {
    if (!(error instanceof ApiError)) note('crashes', `threw ${String(error)}`);
    else {
      said.push(error.message);
      if (!b.fails) note('lostRows', `failed (${error.message.slice(0, 200)}) instead of giving ${b.rows.filter((r) => r.want).length} rows`);
      else if (error.kind !== 'invalid-response') note('crashes', `failed as ${error.kind}: ${error.message}`);
    }
  } else if (b.fails) {
    note('lostRows', `gave ${result!.records.length} rows for a body that is not whole`);
  } else {
    const want = b.rows.filter((r): r is Row & { want: NonNullable<Row['want']> } => r.want !== undefined);
    const got = result!.records;
    if (got.length !== want.length) note('lostRows', `${got.length} rows, want ${want.length}: ${b.rows.map((r) => r.why).join('; ')}`);
    if (result!.rejected.count !== b.rows.length - want.length) note('lostRows', `${result!.rejected.count} rejected, want ${b.rows.length - want.length}`);
    for (let i = 0; i < Math.min(got.length, want.length); i++) {
      const g = got[i]!;
      const w = want[i]!.want;
      const same = g.source === w.source && g.visibleFrom === w.visibleFrom && g.emails === w.emails && g.dateMs === w.dateMs && JSON.stringify(g.rdns) === JSON.stringify(w.rdns);
      if (!same) note('lostRows', `row ${i} is not the row sent (${want[i]!.why}): ${JSON.stringify({ g: [g.source, g.emails, g.dateMs], w: [w.source, w.emails, w.dateMs] })}`);
    }
    for (const r of result!.rejected.samples) said.push(r.reason);
    for (const w of result!.warnings) said.push(w.message);
  }
  const p = polluted();
  if (p) note('crashes', p);
  return problems;
}

async function overHttp(server: ByteServer, b: Body): Promise<string[]> {
  server.serve({ status: 200, headers: { 'Content-Type': b.contentType }, body: b.bytes });
  let result: FetchResult | undefined;
  let error: unknown;
  try {
    result = await fetchDmarcRecords(
      { baseUrl: server.url, apiKey: KEY, organizationId: 'org-h', startDate: '2025-06-01', endDate: '2025-06-30' },
      { retries: 0, timeoutMs: 20_000, log: (l) => said.push(l) },
    );
  } catch (e) {
    error = e;
  }
  return judge(b, 'http', result, error);
}

async function sliced(b: Body): Promise<string[]> {
  let result: FetchResult | undefined;
  let error: unknown;
  try {
    // Every body through the scanner's sliced path, in small pieces (the client streams instead).
    result = await parseRecordsBody(new TextDecoder().decode(b.bytes), b.contentType, { secret: KEY, oneShotMaxChars: 0, pieceChars: 200 });
  } catch (e) {
    error = e;
  }
  return judge(b, 'sliced', result, error);
}

export async function both(server: ByteServer, b: Body): Promise<string[]> {
  tried('bodies');
  return [...(await overHttp(server, b)), ...(await sliced(b))];
}
