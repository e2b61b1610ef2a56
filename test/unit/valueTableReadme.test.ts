// Issue 43 (7): the README's "What the values mean" is what the tooltips say, word for word: its
// table is VALUE_TABLE (media/webview/valueHelp.ts), row for row, in order.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLACE_NAMES, valueHelp, valueTable } from '../../media/webview/valueHelp';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8').replace(/\r\n/g, '\n');
const TITLE = '### What the values mean';

/** The table's lines as the README must have them. */
export function valueTableMarkdown(): string[] {
  const value = (v: string): string => (v === '' ? '(empty)' : v === '(none)' ? '(none)' : `\`${v}\``);
  return ['| value | in | means |', '|---|---|---|', ...valueTable().map((e) => `| ${e.values.map(value).join(', ')} | ${PLACE_NAMES[e.place]} | ${e.means} |`)];
}

describe('webview: the README explains each value as its tooltip does', () => {
  it('"What the values mean" holds the value table, row for row', () => {
    const start = readme.indexOf(`\n${TITLE}\n`);
    assert.ok(start >= 0, `README.md has no "${TITLE}" section`);
    const lines = readme.slice(start).split('\n');
    const first = lines.findIndex((l) => l.startsWith('| value |'));
    assert.ok(first > 0, 'a table under the title');
    let end = first;
    while (lines[end]?.startsWith('|')) end++;
    const want = valueTableMarkdown();
    assert.deepEqual(lines.slice(first, end), want, `expected:\n${want.join('\n')}`);
  });

  it('every value of the table has its tooltip, naming the value', () => {
    const where = { result: 'alignedSpf', dkim: 'dkim', disposition: 'dmarc', dmarcResult: 'dmarcResult', category: 'category', dkimAligned: 'dkimAligned', override: 'override' } as const;
    for (const e of valueTable()) {
      for (const v of e.values) {
        const help = valueHelp(where[e.place], v);
        assert.ok(help?.endsWith(e.means), `${e.place} ${JSON.stringify(v)}: ${help}`);
      }
    }
    // The API's four categories, which hovering showed only counts for.
    for (const v of ['authorized', 'rejected', 'quarantined', 'partially-authorized']) assert.match(String(valueHelp('category', v)), new RegExp(`^Category ${v}: `));
  });
});
