import { strict as assert } from 'node:assert';
import { valueHelp } from '../../media/webview/valueHelp';

/** Every Result value the API contract allows (spec §2.4), the empty string included. */
const RESULTS = ['permerror', 'fail', 'temperror', 'temperr', 'softfail', 'unknown', 'none', 'neutral', 'policy', 'pass', 'skipped', ''];

describe('webview: what a value means (facet tooltips)', () => {
  it('explains every result value of the contract, in every result facet, naming the facet and the value', () => {
    const names = { alignedSpf: 'Aligned SPF', alignedDkim: 'Aligned DKIM', spf: 'SPF' } as const;
    for (const [facet, name] of Object.entries(names) as [keyof typeof names, string][]) {
      for (const v of RESULTS) {
        const help = valueHelp(facet, v);
        assert.ok(help?.startsWith(`${name} ${v || '(empty)'}: `), `${facet} ${JSON.stringify(v)}: ${help}`);
      }
    }
    for (const v of RESULTS) assert.match(String(valueHelp('dkim', v)), new RegExp(`result ${v || '\\(empty\\)'}: `));
  });

  it('says temperr is another spelling of temperror, what empty and "no signature" mean', () => {
    assert.match(String(valueHelp('alignedSpf', 'temperr')), /spelling .* for temperror/);
    assert.match(String(valueHelp('alignedSpf', 'temperror')), /temporary error/);
    assert.match(String(valueHelp('alignedDkim', '')), /gave no result/);
    assert.match(String(valueHelp('alignedDkim', 'none')), /nothing to check/);
    assert.match(String(valueHelp('dkim', '(none)')), /^No DKIM signature/);
  });

  it('explains dispositions and the DMARC result; leaves names and unknown values alone', () => {
    assert.match(String(valueHelp('dmarc', 'none')), /^Disposition none: delivered/);
    assert.match(String(valueHelp('dmarc', 'reject')), /rejected/);
    assert.match(String(valueHelp('dmarcResult', 'pass')), /aligned SPF or aligned DKIM passed/);
    assert.equal(valueHelp('source', 'pass'), undefined);
    assert.equal(valueHelp('alignedSpf', 'something-new'), undefined);
    assert.equal(valueHelp('alignedSpf', '__proto__'), undefined);
    assert.equal(valueHelp('dmarc', 'constructor'), undefined);
  });
});
