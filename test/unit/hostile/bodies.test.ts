// Hostile API bodies (issue 14): generated and seeded with fast-check, served byte for byte by a
// loopback server and read by the real client over real HTTP, and read again by the sliced body
// parser (test/hostile/bodyCheck.ts). Each ends in exactly the good rows (checked against the
// expectation the generator worked out) or an ApiError; Object.prototype is checked after each;
// the key is searched for in every message and log line.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { startByteServer, type ByteServer } from '../../hostile/byteServer';
import { body, goodRow, KEY, truncations } from '../../hostile/bodies';
import { both, said } from '../../hostile/bodyCheck';
import { leaksIn } from '../../hostile/figures';

const SEED = 14;

describe('hostile: API bodies', function () {
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

  it('generated bodies (good, bad and junk rows; envelope or bare; BOM, spacing, duplicate and __proto__ keys) give exactly their good rows', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => assert.deepEqual(await both(server, b), [])),
      { seed: SEED, numRuns: 160, endOnFailure: true },
    );
  });

  it('a real response cut at every structural position fails as an invalid response, never as fewer rows', async () => {
    const [rows] = fc.sample(fc.array(goodRow, { minLength: 3, maxLength: 3 }), { seed: SEED, numRuns: 1 });
    const whole = `{"status":"success","dmarcRecords":[${rows!.map((r) => r.text).join(',')}]}`;
    // Every position in the envelope and the first row, then every 7th: enough to meet each kind of cut.
    const cuts = truncations(whole).filter((_c, i) => i < 60 || i % 7 === 0);
    for (const c of cuts) assert.deepEqual(await both(server, c), []);
    // The whole of it reads, as a control.
    assert.deepEqual(await both(server, { bytes: Buffer.from(whole), contentType: 'application/json', rows: rows!, fails: false, why: 'whole' }), []);
  });
});

