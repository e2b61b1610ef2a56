// The README's "Why mail fails, and what to fix" against the advice vocabulary
// (src/advice/vocabulary.ts): its three tables hold every SPF reason, DKIM reason and class with
// their label and rule word for word, in the rules' order, and the shares it quotes are the
// default thresholds. So what the README says and what the extension computes cannot drift.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_THRESHOLDS, DKIM_REASONS, ROW_CLASSES, SPF_REASONS, termOf } from '../../src/advice/vocabulary';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\r\n/g, '\n');

const TITLE = '### Why mail fails, and what to fix';

/** The section's text, from its title to the next heading of its level or above. */
function section(): string {
  const start = readme.indexOf(`\n${TITLE}\n`);
  assert.ok(start >= 0, `README.md has no "${TITLE}" section`);
  const rest = readme.slice(start + 1);
  const end = rest.slice(TITLE.length).search(/\n#{1,3} /);
  return end < 0 ? rest : rest.slice(0, TITLE.length + end + 1);
}

/** The section's tables: each its header cells and its rows' cells. */
function tables(text: string): { head: string[]; rows: string[][] }[] {
  const cells = (line: string) => line.slice(1, -1).split(' | ').map((c) => c.trim());
  const out: { head: string[]; rows: string[][] }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || !/^\|(-+\|)+$/.test(lines[i + 1] ?? '')) continue;
    const t = { head: cells(lines[i]!), rows: [] as string[][] };
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) t.rows.push(cells(lines[i]!));
    out.push(t);
  }
  return out;
}

const pct = (share: number) => `${Math.round(share * 1000) / 10}%`;

describe('advice: the README states the rules the code has', () => {
  const text = section();
  const [spf, dkim, cls, ...more] = tables(text);

  it('the section comes right after "What the values mean", before "Connect to the real service"', () => {
    const headings = readme.split('\n').filter((l) => /^#{1,3} /.test(l));
    const at = headings.indexOf(TITLE);
    assert.deepEqual(headings.slice(at - 1, at + 2), ['### What the values mean', TITLE, '## Connect to the real service']);
  });

  it('three tables: SPF reasons, DKIM reasons, classes', () => {
    assert.deepEqual([spf?.head, dkim?.head, cls?.head, more.length], [['SPF reason', 'when'], ['DKIM reason', 'when'], ['class', 'when'], 0]);
  });

  for (const [name, codes, table] of [
    ['SPF reason', SPF_REASONS, () => spf!],
    ['DKIM reason', DKIM_REASONS, () => dkim!],
    ['class', ROW_CLASSES, () => cls!],
  ] as const) {
    it(`every ${name}'s label and rule, word for word, in the rules' order`, () => {
      const want = codes.map((c) => {
        const t = termOf(c)!;
        return [t.label, t.rule];
      });
      assert.deepEqual(table().rows, want);
      // Verbatim in the text as well (a table cell could not hide a reworded rule).
      for (const [label, rule] of want) assert.ok(text.includes(`| ${label} | ${rule} |`), label);
    });
  }

  it('states the order in which a row takes its class', () => {
    const labels = ROW_CLASSES.map((c) => termOf(c)!.label);
    const order = `${labels.slice(0, -1).join(', ')}, ${labels.at(-1)}`;
    assert.ok(text.replace(/\s+/g, ' ').includes(`A row takes the first class that fits, in this order: ${order}.`), order);
  });

  it('quotes the default thresholds and no other share', () => {
    const flat = text.replace(/\s+/g, ' ');
    const { compliant, quarantine, reject } = DEFAULT_THRESHOLDS;
    for (const phrase of [
      `Compliant when at least ${pct(compliant)} of its emails pass DMARC`,
      `less than ${pct(quarantine)} of legitimate mail passes`,
      `at least ${pct(reject)} passes, ready for p=reject`,
      `at least ${pct(quarantine)} passes, ready for p=quarantine`,
      `The bars, ${pct(quarantine)} of legitimate mail for quarantine and ${pct(reject)} for reject, are defaults`,
    ])
      assert.ok(flat.includes(phrase), phrase);
    const quoted = new Set(flat.match(/\d+(\.\d+)?%/g));
    assert.deepEqual([...quoted].sort(), [pct(compliant), pct(quarantine), pct(reject)].sort());
  });
});
