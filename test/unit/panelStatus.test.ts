import { strict as assert } from 'node:assert';
import { PanelStatus } from '../../src/panel/panelStatus';
import type { HostMessage } from '../../src/shared/protocol';

describe('a records panel\u2019s status, told again to a rebuilt page (src/panel/panelStatus.ts)', () => {
  const loading: HostMessage = { type: 'loading', message: 'Fetching…', load: 1 };
  const notices: HostMessage = { type: 'notices', notices: ['2 malformed rows'] };
  const published: HostMessage = { type: 'advice', published: { fromReports: false } };
  const refused: HostMessage = { type: 'error', message: 'refused (HTTP 403)', canRetry: true, canUpdateKey: true };

  it('keeps the load\u2019s state, its notices and the stated policy, in the order posted', () => {
    const s = new PanelStatus();
    assert.deepEqual([loading, notices, published].map((m) => s.note(m)), [true, true, true]);
    assert.deepEqual(s.messages(), [loading, notices, published]);
  });

  it('a later load\u2019s state replaces the last one and drops its notices; the policy stays until the next one', () => {
    const s = new PanelStatus();
    for (const m of [loading, notices, published, refused]) s.note(m);
    assert.deepEqual(s.messages(), [refused, published]);
  });

  it('once every row of the load was posted, its loading state is dropped; its notices and policy stay', () => {
    const s = new PanelStatus();
    for (const m of [loading, notices, published]) s.note(m);
    s.loaded();
    assert.deepEqual(s.messages(), [notices, published]);
    s.note(refused);
    s.loaded();
    assert.deepEqual(s.messages(), [refused, published], 'an error stays');
  });

  it('rows, answers, commands and the advice\u2019s thresholds or marks are no status (init carries those)', () => {
    const s = new PanelStatus();
    const others: HostMessage[] = [
      { type: 'rows', load: 1, offset: 0, count: 0, total: 0, growing: false, data: new Uint8Array(), last: true },
      { type: 'response', requestId: 1, ok: true, result: null },
      { type: 'command', command: 'selectAll' },
      { type: 'advice', thresholds: { compliant: 0.98, quarantine: 0.95, reject: 0.99 } },
      { type: 'advice', marks: [] },
    ];
    assert.deepEqual(others.map((m) => s.note(m)), [false, false, false, false, false]);
    assert.deepEqual(s.messages(), []);
  });

  it('names the error of a load that failed after rows came (told again once the rows were posted again)', () => {
    const s = new PanelStatus();
    s.note(refused);
    assert.equal(s.partialError(), undefined);
    const partial: HostMessage = { type: 'error', message: 'reset', canRetry: true, canUpdateKey: false, partial: 120 };
    s.note(partial);
    assert.equal(s.partialError(), partial);
    s.note(loading);
    assert.equal(s.partialError(), undefined);
  });
});
