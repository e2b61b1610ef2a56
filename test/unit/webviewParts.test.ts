import { strict as assert } from 'node:assert';
import { tokenizeJson } from '../../media/webview/jsonTokens';
import { emptyViewState, readSavedState, sameIdentity, sanitizeViewState } from '../../media/webview/viewState';
import { dkimText, revealBidi, toneOf, valueLabel } from '../../media/webview/format';
import { MAX_SPACER, ROW_HEIGHT, scrollGeometry } from '../../media/webview/table';
import { SidewaysScroll } from '../../media/webview/sideways';
import { viewStateSchema, webviewMessageSchema } from '../../src/shared/protocol';

describe('webview JSON tokens', () => {
  it('splits pretty JSON into keys, strings, numbers, booleans, null and punctuation, losing nothing', () => {
    const src = JSON.stringify({ a: 'x "quoted" \\ ü', n: -1.5e3, t: true, f: false, z: null, list: [1, { 'k:': ':' }], '': '' }, null, 2);
    const tokens = tokenizeJson(src);
    assert.equal(tokens.map((t) => t.text).join(''), src);
    const of = (kind: string) => tokens.filter((t) => t.kind === kind).map((t) => t.text);
    assert.deepEqual(of('key'), ['"a"', '"n"', '"t"', '"f"', '"z"', '"list"', '"k:"', '""']);
    assert.deepEqual(of('string'), ['"x \\"quoted\\" \\\\ ü"', '":"', '""']);
    assert.deepEqual(of('number'), ['-1500', '1']);
    assert.deepEqual(of('boolean'), ['true', 'false']);
    assert.deepEqual(of('null'), ['null']);
  });

  it('keeps any text, also broken JSON, as plain text', () => {
    for (const src of ['{"a": "unterminated', '<img src=x onerror=alert(1)>', 'nul tru 1e', '"\\', '']) {
      const tokens = tokenizeJson(src);
      assert.equal(tokens.map((t) => t.text).join(''), src);
    }
    assert.ok(tokenizeJson('<b>').every((t) => t.kind === 'text' || t.kind === 'punctuation'));
  });
});

describe('webview view state', () => {
  it('keeps what is valid and drops the rest', () => {
    const v = sanitizeViewState({
      hiddenColumns: ['emails', 'nope', 'emails', 3],
      sort: { column: 'date', descending: true },
      search: 'x'.repeat(2000),
      facets: { category: ['rejected', 5, 'y'.repeat(300)], bogus: ['a'], dkim: 'pass' },
      scrollTop: 120.5,
      focused: 7,
    });
    assert.deepEqual(v.hiddenColumns, ['emails']);
    assert.deepEqual(v.sort, { column: 'date', descending: true });
    assert.equal(v.search.length, 1000);
    assert.deepEqual(v.facets, { category: ['rejected'] });
    assert.equal(v.scrollTop, 120.5);
    assert.equal(v.focused, 7);
    assert.ok(viewStateSchema.safeParse(v).success, 'what it keeps passes the host schema');
  });

  it('falls back to the defaults on garbage', () => {
    for (const raw of [null, 'x', 5, { sort: { column: 'nope', descending: true }, scrollTop: -1, focused: 1.5 }]) {
      const v = sanitizeViewState(raw);
      assert.deepEqual(v, emptyViewState());
      assert.ok(viewStateSchema.safeParse(v).success);
    }
  });

  it('reads the saved { identity, view } shape and compares identities', () => {
    const identity = { accountId: 'a', organizationId: 'o', start: '2025-03-01T00:00:00.000Z', end: '2025-03-31T23:59:59.999Z' };
    const saved = readSavedState({ identity, view: { search: 'google' } });
    assert.deepEqual(saved.identity, identity);
    assert.equal(saved.view?.search, 'google');
    assert.deepEqual(readSavedState(undefined), {});
    assert.ok(sameIdentity(identity, { ...identity }));
    assert.ok(!sameIdentity(identity, { ...identity, source: 'Google' }));
    assert.ok(!sameIdentity(identity, undefined));
  });
});

describe('webview formatting', () => {
  it('writes DKIM cells as count and results', () => {
    assert.equal(dkimText([]), '0');
    assert.equal(dkimText(['pass', 'fail']), '2 (pass, fail)');
    assert.equal(dkimText(['']), '1 ((empty))');
    assert.equal(valueLabel(''), '(empty)');
  });

  it('colours results: pass green, failures red, in-between amber, unknown neutral', () => {
    assert.equal(toneOf('alignedSpf', 'pass'), 'pass');
    assert.equal(toneOf('spf', 'PermError'), 'fail');
    assert.equal(toneOf('dkim', 'softfail'), 'warn');
    assert.equal(toneOf('spf', ''), 'neutral');
    assert.equal(toneOf('category', 'rejected'), 'fail');
    assert.equal(toneOf('category', 'partially-authorized'), 'warn');
    assert.equal(toneOf('dmarc', 'quarantine'), 'warn');
    assert.equal(toneOf('dmarc', 'something-new'), 'neutral');
  });
});

describe('webview bidi controls', () => {
  it('shows bidirectional control characters as escapes, and leaves other text alone', () => {
    assert.equal(revealBidi('\u202egnp.exe'), '\\u202egnp.exe');
    assert.equal(revealBidi('a\u2066b\u2069c\u200f'), 'a\\u2066b\\u2069c\\u200f');
    assert.equal(revealBidi('mail.example.com'), 'mail.example.com');
    assert.equal(revealBidi('שלום مرحبا Grüße 😀'), 'שלום مرحبا Grüße 😀', 'right-to-left text itself is not touched');
    // In JSON the escape means the same character: the detail pane's text still parses to the row.
    assert.equal(JSON.parse(revealBidi(JSON.stringify({ s: 'x\u202ey' }))).s, 'x\u202ey');
  });

  it('escapes each of the 12 bidirectional formatting characters of Unicode TR9 (marks, embeddings, overrides, isolates), and nothing next to them', () => {
    const controls = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const cp of controls) {
      const c = String.fromCharCode(cp);
      const escape = `\\u${cp.toString(16).padStart(4, '0')}`;
      assert.equal(revealBidi(c), escape, `U+${cp.toString(16)}`);
      assert.equal(revealBidi(`a${c}b${c}`), `a${escape}b${escape}`);
    }
    // Neighbours of the ranges are left as they are.
    for (const cp of [0x061b, 0x061d, 0x200d, 0x2010, 0x2029, 0x202f, 0x2065, 0x206a]) assert.equal(revealBidi(`x${String.fromCharCode(cp)}`), `x${String.fromCharCode(cp)}`);
  });
});

describe('webview scroll geometry', () => {
  it('maps scrollTop one to one below the height cap', () => {
    const g = scrollGeometry(1000, 500);
    assert.equal(g.spacer, 1000 * ROW_HEIGHT);
    assert.equal(g.toVirtual(1234), 1234);
    assert.equal(g.toScroll(1234), 1234);
  });

  it('caps the spacer past the browser limit and maps the scroll range onto every row', () => {
    const rows = 5_000_000;
    const viewport = 600;
    const g = scrollGeometry(rows, viewport);
    assert.equal(g.spacer, MAX_SPACER);
    assert.equal(g.toVirtual(0), 0);
    const maxScroll = MAX_SPACER - viewport;
    assert.equal(Math.round(g.toVirtual(maxScroll)), rows * ROW_HEIGHT - viewport, 'the bottom reaches the last row');
    assert.ok(Math.abs(g.toScroll(g.toVirtual(12345)) - 12345) < 1e-6);
  });
});

describe('webview sideways scroll across a squeeze of the page (issue 43)', () => {
  it('scrolls made while the page was narrower are undone when it is as wide again; those at full width are kept', () => {
    const s = new SidewaysScroll(1092);
    s.scrolled(0, 1092);
    // An export beside the panel: half the width. The user scrolls to the columns that went out of sight.
    assert.equal(s.resized(546), undefined, 'narrower: left as it is');
    s.scrolled(480, 546);
    assert.equal(s.resized(800), undefined, 'wider, not yet as wide');
    // The export closed: the first columns in sight again.
    assert.equal(s.resized(1092), 0);
    // At full width the user's own scroll is the one kept, also past a pane opened or closed (no page edge moves).
    s.scrolled(300, 1092);
    assert.equal(s.resized(1092), 300);
    s.resized(700);
    s.scrolled(900, 700);
    assert.equal(s.resized(1400), 300, 'a wider page still comes back to it');
    s.scrolled(120, 1400);
    assert.equal(s.resized(1400), 120);
  });

  it('a page that starts narrow keeps the user\u2019s scroll when it grows', () => {
    const s = new SidewaysScroll(500);
    s.scrolled(250, 500);
    assert.equal(s.resized(1000), 250);
  });
});

describe('the export messages\u2019 page width (issue 43: beside a wide panel only)', () => {
  it('is optional, and else a number of CSS pixels from 0 to 100,000', () => {
    const messages = [
      { type: 'export', requestId: 1, format: 'json', indices: [0], what: 'selected' },
      { type: 'exportGroups', requestId: 2, format: 'csv', title: 'Source', rows: [] },
      { type: 'exportAdvice', requestId: 3, format: 'json', title: 'Ready', rows: [] },
    ];
    for (const m of messages) {
      const ok = (pageWidth: unknown) => webviewMessageSchema.safeParse({ ...m, pageWidth }).success;
      assert.ok(webviewMessageSchema.safeParse(m).success, `${m.type} without a width`);
      for (const w of [0, 1092, 1440.5, 100_000]) assert.ok(ok(w), `${m.type} ${w}`);
      for (const w of [-1, 100_001, Number.NaN, Number.POSITIVE_INFINITY, '1600', null, [1600]]) assert.ok(!ok(w), `${m.type} ${String(w)}`);
    }
  });
});
