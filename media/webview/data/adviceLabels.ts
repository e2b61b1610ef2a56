/**
 * The advice codes a row carries (src/advice/vocabulary.ts: why SPF, why DKIM, its class) as the
 * table shows them: by their labels, which are also what the search, the facets and the groups
 * see. A code outside the vocabulary is shown as sent. DOM-free.
 */
import { DKIM_REASONS, ROW_CLASSES, SPF_REASONS, termOf } from '../../../src/advice/vocabulary';

type Tone = 'pass' | 'fail' | 'warn' | 'neutral' | 'info';

const CODES: readonly string[] = [...SPF_REASONS, ...DKIM_REASONS, ...ROW_CLASSES];

const TONES: Readonly<Record<string, Tone>> = {
  compliant: 'pass', forwarded: 'info', 'needs-fixing': 'warn', unauthenticated: 'fail',
  'spf-aligned-pass': 'pass', 'spf-unaligned-pass': 'warn', 'spf-not-allowed-own': 'fail', 'spf-not-allowed-other': 'fail',
  'spf-none': 'fail', 'spf-error': 'warn', 'spf-unknown': 'neutral',
  'dkim-aligned-pass': 'pass', 'dkim-aligned-fails': 'fail', 'dkim-other-domain': 'warn', 'dkim-other-fails': 'fail',
  'dkim-none': 'fail', 'dkim-error': 'warn', 'dkim-unknown': 'neutral',
};

/** Columns whose scalar is an advice code, shown (and searched, faceted, grouped) by its label (store.ts). */
export const ADVICE_COLUMNS: ReadonlySet<string> = new Set(['spfReason', 'dkimReason', 'rowClass']);
/** Labels an advice column can add to a chunk's strings: one per code of the vocabulary. */
export const ADVICE_LABELS_MAX = CODES.length;

/**
 * For one chunk: the search id of an advice code's cell, by the code's string code. Its label is
 * added once per distinct code of the chunk (`add`); a code outside the vocabulary is its own
 * label, the chunk's string as it is; a code past the strings reads as `empty`.
 */
export function adviceCellIds(strings: readonly string[], empty: number, add: (label: string) => number): (code: number) => number {
  const ids = new Int32Array(strings.length).fill(-1);
  return (code) => {
    if (code >= strings.length) return empty;
    let id = ids[code]!;
    if (id < 0) {
      const label = adviceLabel(strings[code]!);
      ids[code] = id = label === strings[code] ? code : add(label);
    }
    return id;
  };
}

let byLabel: Map<string, string> | undefined;

/** The label of an advice code; the code itself when it is not one. */
export function adviceLabel(code: string): string {
  return termOf(code)?.label ?? code;
}

/** The code whose label this is (cells hold labels); undefined for any other text. */
export function adviceCode(label: string): string | undefined {
  if (!byLabel) byLabel = new Map(CODES.map((c) => [adviceLabel(c), c]));
  return byLabel.get(label);
}

/** The badge tone of a cell of the class or reason columns. */
export function adviceTone(label: string): Tone {
  const code = adviceCode(label);
  return code === undefined ? 'neutral' : TONES[code] ?? 'neutral';
}

/** The rule behind a cell's value, for its tooltip; undefined for a value outside the vocabulary. */
export function adviceRule(label: string): string | undefined {
  const code = adviceCode(label);
  return code === undefined ? undefined : termOf(code)?.rule;
}
