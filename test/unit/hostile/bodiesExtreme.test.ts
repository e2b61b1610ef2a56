// Hostile API bodies, the extremes (issue 14): every field given every wrong JSON type, 10 MB
// strings, 100,000-deep nesting, 1M-element arrays of junk, numbers JSON has no room for, bodies
// declared as JSON that are HTML, XML, UTF-16 or empty, and servers that echo the key back. Each
// is read over real HTTP and by the sliced parser (test/hostile/bodyCheck.ts).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { startByteServer, type ByteServer } from '../../hostile/byteServer';
import { goodRow, KEY, named, type Body, type Row } from '../../hostile/bodies';
import { both, said } from '../../hostile/bodyCheck';
import { leaksIn, secretForms } from '../../hostile/figures';

const [GOOD] = fc.sample(goodRow, { seed: 41, numRuns: 1 }) as [Row];
const FIELDS = ['source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns', 'emails', 'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims', 'reportId'];
const TYPES: Record<string, string | undefined> = { number: '7', fraction: '0.5', negative: '-1', string: '"x"', true: 'true', null: 'null', object: '{"a":1}', array: '["x"]', empty: '[]', missing: undefined };

/** Whether the spec allows `type` for `field` (§2.2: which are required, optional, lists, numbers). */
function allowed(field: string, type: string): boolean {
  if (type === 'missing') return ['to', 'ipCountryCode', 'reportId'].includes(field);
  if (['to', 'ipCountryCode', 'reportId'].includes(field)) return type === 'string' || type === 'null';
  if (field === 'emails') return type === 'number' || type === 'fraction';
  if (field === 'rdns') return type === 'string' || type === 'array' || type === 'empty';
  if (field === 'dkims') return type === 'empty';
  if (field === 'date') return false; // "x" is no date
  return type === 'string';
}

function rowWith(field: string, value: string | undefined): string {
  const obj: Record<string, unknown> = { ...GOOD.obj! };
  delete obj[field];
  const rest = JSON.stringify(obj).slice(1);
  return value === undefined ? `{${rest}` : `{${JSON.stringify(field)}:${value},${rest}`;
}

function envelope(rows: string[], extra = ''): Buffer {
  return Buffer.from(`{"status":"success",${extra}"dmarcRecords":[${rows.join(',')}]}`);
}

const json = (bytes: Buffer, rows: Row[], why: string, fails = false): Body => named({ bytes, contentType: 'application/json', rows, fails, why });

describe('hostile: API bodies, extremes', function () {
  this.timeout(180_000);
  let server: ByteServer;
  before(async () => {
    server = await startByteServer();
  });
  after(async () => {
    await server?.close();
  });
  afterEach(() => {
    assert.equal(leaksIn(KEY, said.splice(0), 'bodies'), 0, 'the key is in a message or log line');
  });

  it('every field given every JSON type: the row is kept exactly when the spec allows the type, the good row beside it always', async () => {
    for (const field of FIELDS) {
      for (const [type, value] of Object.entries(TYPES)) {
        const ok = allowed(field, type);
        const bad: Row = { text: rowWith(field, value), why: `${field} ${type}` };
        // The row's expected form, when kept: rdns as the list it becomes, emails as sent.
        if (ok) {
          const w = { ...GOOD.want! };
          if (field === 'rdns') w.rdns = type === 'string' ? ['x'] : type === 'array' ? ['x'] : [];
          if (field === 'emails') w.emails = Number(value);
          if (field === 'source' || field === 'visibleFrom') w[field] = 'x';
          bad.want = w;
        }
        assert.deepEqual(await both(server, json(envelope([bad.text, GOOD.text]), [bad, GOOD], `${field} as ${type}`)), []);
      }
    }
  });

  it('a 10 MB string in a field is kept whole', async () => {
    const big = 'x\u202e<b>'.repeat(2.5 * 1024 * 1024);
    const row: Row = { text: rowWith('source', JSON.stringify(big)), want: { ...GOOD.want!, source: big }, why: '10 MB source' };
    assert.deepEqual(await both(server, json(envelope([row.text, GOOD.text]), [row, GOOD], '10 MB string')), []);
  });

  it('100,000-deep nesting: inside a row (kept, as an unknown field), as a row (left out), as the body (refused)', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const inRow: Row = { text: `{"deep":${deep},${GOOD.text.slice(1)}`, want: GOOD.want, why: 'deep field' };
    assert.deepEqual(await both(server, json(envelope([inRow.text, GOOD.text]), [inRow, GOOD], 'deep in a row')), []);
    const asRow: Row = { text: deep, why: 'deep row' };
    assert.deepEqual(await both(server, json(envelope([asRow.text, GOOD.text]), [asRow, GOOD], 'deep row')), []);
    const objects = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    assert.deepEqual(await both(server, json(envelope([objects, GOOD.text]), [{ text: objects, why: 'deep objects' }, GOOD], 'deep objects row')), []);
    assert.deepEqual(await both(server, json(Buffer.from(`{"x":${objects},"status":"success","dmarcRecords":[${GOOD.text}]}`), [GOOD], 'deep beside the envelope')), []);
  });

  it('1,000,000 elements of junk as rows (all left out, counted) and as a field (row kept)', async () => {
    const junk = Array.from({ length: 1_000_000 }, (_, i) => (i % 3 === 0 ? '0' : i % 3 === 1 ? 'null' : '"j"'));
    const rows: Row[] = junk.map((t) => ({ text: t, why: 'junk' }));
    rows.push(GOOD);
    assert.deepEqual(await both(server, json(envelope([...junk, GOOD.text]), rows, '1M junk rows')), []);
    const inField: Row = { text: rowWith('rdns', `[${junk.slice(0, 1_000_000).map(() => '"r"').join(',')}]`), why: '1M rdns' };
    inField.want = { ...GOOD.want!, rdns: Array<string>(1_000_000).fill('r') };
    assert.deepEqual(await both(server, json(envelope([inField.text]), [inField], '1M rdns')), []);
  });

  it('emails beyond JSON or the spec: NaN, Infinity fail the body; 1e400, -1 leave the row out; 2^60, 1.5 are kept', async () => {
    for (const bare of ['NaN', 'Infinity', '-Infinity', '0x10', '1e', '--1', '+1', '.5', '01']) {
      assert.deepEqual(await both(server, json(envelope([rowWith('emails', bare)]), [], `emails ${bare}`, true)), []);
    }
    for (const [v, keep] of [['1e400', false], ['-1e400', false], ['-1', false], ['-0.0001', false], ['1152921504606846976', true], ['1.5', true], ['0', true], ['1e-400', true]] as const) {
      const row: Row = { text: rowWith('emails', v), why: `emails ${v}`, want: keep ? { ...GOOD.want!, emails: Number(v) } : undefined };
      assert.deepEqual(await both(server, json(envelope([row.text, GOOD.text]), [row, GOOD], `emails ${v}`)), []);
    }
  });

  it('bodies declared as JSON that are not (HTML, XML, UTF-16, empty, other shapes) fail clearly, even when they echo the key', async () => {
    const echo = secretForms(KEY).join(' ');
    const bodies: [string, Buffer][] = [
      ['html', Buffer.from(`<!doctype html><html><body>Login for Bearer ${KEY}: ${echo}</body></html>`)],
      ['xml', Buffer.from(`<?xml version="1.0"?><feedback><key>${echo}</key></feedback>`)],
      ['empty', Buffer.alloc(0)],
      ['spaces', Buffer.from(' \r\n\t ')],
      ['bom only', Buffer.from([0xef, 0xbb, 0xbf])],
      ['utf-16le', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(envelope([GOOD.text]).toString(), 'utf16le')])],
      ['utf-16be', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(envelope([GOOD.text]).toString(), 'utf16le').swap16()])],
      ['null', Buffer.from('null')],
      ['string', Buffer.from(JSON.stringify(`token ${KEY}`))],
      ['object', Buffer.from(`{"message":"${echo}"}`)],
      ['status error', Buffer.from(`{"status":"error","message":"key ${KEY} ${echo} refused","dmarcRecords":[]}`)],
      ['records not a list', Buffer.from('{"status":"success","dmarcRecords":{"0":{}}}')],
      ['two lists', Buffer.from(`{"status":"success","dmarcRecords":[${GOOD.text}],"dmarcRecords":"x"}`)],
      ['nul bytes', Buffer.from('\u0000\u0000\u0000')],
      ['invalid utf-8', Buffer.from([0x5b, 0xc3, 0x28, 0xff, 0x5d])],
      ['trailing garbage', Buffer.from(`[${GOOD.text}] <html>${KEY}`)],
      ['js', Buffer.from(`while(1);[${GOOD.text}]`)],
    ];
    for (const [why, bytes] of bodies) {
      for (const contentType of ['application/json', 'text/html']) {
        assert.deepEqual(await both(server, named({ bytes, contentType, rows: [], fails: true, why })), []);
      }
    }
  });
});
