/**
 * Each row's class as the owner's marks count it, DOM-free: the class the host computed per row
 * (the `rowClass` field's label → its index in ROW_CLASSES), moved by the mark of the row's source
 * (src/advice/marks.ts markedClass), as the Advice and the tree's Health count it. One byte per
 * row, NO_CLASS for a value outside the vocabulary; made again only when rows or marks change.
 * The groups table's mixes and verdicts (groups.ts) are made from it.
 */
import { markedClass, NO_MARKS, type Marks } from '../../../src/advice/marks';
import { ROW_CLASSES } from '../../../src/advice/vocabulary';
import { adviceCode } from './adviceLabels';
import type { Fields } from './fields';
import type { FieldIndex } from './fieldTypes';
import type { RowStore } from './store';

/** Not a class: a class value outside the vocabulary (counted in no mix). */
export const NO_CLASS = 255;

/** Per dictionary code of the `rowClass` field (and one more for rows without a value), its class index or NO_CLASS. */
export function classIndexes(field: FieldIndex): Uint8Array {
  const out = new Uint8Array(field.dict.length + 1).fill(NO_CLASS);
  field.dict.forEach((label, k) => {
    const code = adviceCode(label);
    const i = code === undefined ? -1 : (ROW_CLASSES as readonly string[]).indexOf(code);
    if (i >= 0) out[k] = i;
  });
  return out;
}

export class RowClasses {
  private marks: Marks = NO_MARKS;
  private marksVersion = 0;
  private memo: { generation: number; length: number; marks: number; classes: Uint8Array } | undefined;

  constructor(
    private readonly store: RowStore,
    private readonly fields: Fields,
  ) {}

  setMarks(marks: Marks): void {
    if (marks === this.marks) return;
    this.marks = marks;
    this.marksVersion++;
  }

  /** Per row i < store.length, its class index after the marks (NO_CLASS: none). */
  classes(): Uint8Array {
    const s = this.store;
    const m = this.memo;
    if (m && m.generation === s.generation && m.length === s.length && m.marks === this.marksVersion) return m.classes;
    const field = this.fields.get('rowClass');
    if (field.kind !== 'single') throw new Error('rowClass is single-valued');
    const of = classIndexes(field);
    const codes = field.codes;
    const n = s.length;
    const out = new Uint8Array(n);
    // Rows appended since, with the same marks: only theirs are looked up.
    const from = m && m.generation === s.generation && m.marks === this.marksVersion && m.length < n ? m.length : 0;
    if (from) out.set(m!.classes);
    for (let i = from; i < n; i++) out[i] = of[codes[i]!]!;
    if (this.marks.size) {
      const src = this.fields.get('source');
      if (src.kind !== 'single') throw new Error('source is single-valued');
      // Per source code, its mark (0 none, 1 mine, 2 not mine).
      const markOf = new Uint8Array(src.dict.length + 1);
      src.dict.forEach((name, k) => {
        const mark = this.marks.get(name);
        markOf[k] = mark === 'mine' ? 1 : mark === 'not-mine' ? 2 : 0;
      });
      for (let i = from; i < n; i++) {
        const mk = markOf[src.codes[i]!]!;
        const c = out[i]!;
        if (mk && c !== NO_CLASS) out[i] = markedClass(c, mk === 1 ? 'mine' : 'not-mine');
      }
    }
    this.memo = { generation: s.generation, length: n, marks: this.marksVersion, classes: out };
    return out;
  }

  /** A key that changes when classes() would (for caches of what is made from it). */
  get key(): string {
    return `${this.store.generation} ${this.store.length} ${this.marksVersion}`;
  }
}
