/**
 * Each row's class as the owner's marks count it, DOM-free: the class the host computed per row
 * (the `rowClass` field's label → its index in ROW_CLASSES), moved by the mark of the row's source
 * (src/advice/marks.ts markedClass), as the Advice and the tree's Health count it. One byte per
 * row, NO_CLASS for a value outside the vocabulary; made again only when rows or marks change.
 * The groups table's mixes and verdicts (groups.ts) are made from it.
 */
import { markedClass, NO_MARKS, type Marks } from '../../../src/advice/marks';
import { verdictOf } from '../../../src/advice/verdict';
import { DEFAULT_THRESHOLDS, ROW_CLASSES, termOf } from '../../../src/advice/vocabulary';
import { adviceCode } from './adviceLabels';
import type { Fields } from './fields';
import type { FieldIndex, SingleField } from './fieldTypes';
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

/** The verdicts in the order the `verdict` field codes them (what asks for action first), then none. */
const VERDICT_ORDER = ['needs-fixing', 'unauthenticated', 'forwarded', 'compliant'] as const;

export class RowClasses {
  private marks: Marks = NO_MARKS;
  private marksVersion = 0;
  /** The share of a source's emails that must pass for it to be Compliant. */
  private compliant = DEFAULT_THRESHOLDS.compliant;
  private memo: { generation: number; length: number; marks: number; classes: Uint8Array } | undefined;
  /**
   * Every row is in: the verdicts are judged on all of them. The page says false while a load's
   * rows stream in (rowPump.ts), and true with its last rows; see sourceVerdicts.
   */
  private settled = true;
  /** The verdict field as last made: from a whole judgement (`full` rows judged) and extended since. */
  private verdicts: { generation: number; rulesVersion: number; settled: boolean; full: number; bySource: Uint32Array; field: SingleField } | undefined;
  private rulesVersion = 0;
  /** Bumped each time the verdicts are judged whole: values of rows already counted may have moved (facet counts, query.ts). */
  buildId = 0;

  constructor(
    private readonly store: RowStore,
    private readonly fields: Fields,
  ) {}

  setCompliant(share: number): void {
    if (share === this.compliant) return;
    this.compliant = share;
    this.rulesChanged();
  }

  setMarks(marks: Marks): void {
    if (marks === this.marks) return;
    this.marks = marks;
    this.marksVersion++;
    this.rulesChanged();
  }

  /** Whether every row of the load is in (the last chunk came): the verdicts are then judged on all. */
  setSettled(settled: boolean): void {
    this.settled = settled;
  }

  /** Verdicts move without a row changing: the store's caches (views, facet counts) must not be reused. */
  private rulesChanged(): void {
    this.rulesVersion++;
    if (this.store.length) this.store.version++;
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

  /** A key that changes when sourceVerdicts() would. */
  get verdictKey(): string {
    return `${this.key} ${this.rulesVersion} ${this.settled}`;
  }

  /**
   * Per row, the verdict of its source over every row stored (after the marks, at the Compliant
   * share): a field whose values are the verdicts' labels ('' for a source without a judged email).
   * Made whole each time (a row's value moves with the rows that come after it).
   */
  sourceVerdicts(): SingleField {
    const s = this.store;
    const v = this.verdicts;
    const n = s.length;
    // While rows stream in, judging every row at each update would cost a pass a chunk: rows that
    // come are given their source's verdict as last judged, and all are judged again when the
    // rows have doubled, and once every row is in (or the rules change).
    if (v && v.generation === s.generation && v.rulesVersion === this.rulesVersion && !this.settled && !v.settled && n >= v.field.codes.length && n < 2 * v.full) {
      if (n === v.field.codes.length) return v.field;
      const src = this.fields.get('source');
      if (src.kind !== 'single') throw new Error('source is single-valued');
      const codes = new Uint32Array(n);
      codes.set(v.field.codes);
      const none = VERDICT_ORDER.length;
      for (let i = v.field.codes.length; i < n; i++) codes[i] = v.bySource[src.codes[i]!] ?? none;
      v.field = { kind: 'single', dict: v.field.dict, codes };
      return v.field;
    }
    const { field, bySource } = this.judge();
    this.buildId++;
    this.verdicts = { generation: s.generation, rulesVersion: this.rulesVersion, settled: this.settled, full: Math.max(1, n), bySource, field };
    return field;
  }

  /** Every row's source judged on every row stored now. */
  private judge(): { field: SingleField; bySource: Uint32Array } {
    const classes = this.classes();
    const src = this.fields.get('source');
    if (src.kind !== 'single') throw new Error('source is single-valued');
    const nSrc = src.dict.length + 1;
    const mix = new Float64Array(nSrc * 4);
    const emails = this.store.emails;
    const n = this.store.length;
    for (let i = 0; i < n; i++) {
      const c = classes[i]!;
      if (c < 4) mix[src.codes[i]! * 4 + c]! += emails[i]!;
    }
    const none = VERDICT_ORDER.length;
    const codeOf = new Uint32Array(nSrc);
    for (let s = 0; s < nSrc; s++) {
      const v = verdictOf(mix.subarray(s * 4, s * 4 + 4), this.compliant);
      codeOf[s] = v ? VERDICT_ORDER.indexOf(v) : none;
    }
    const codes = new Uint32Array(n);
    for (let i = 0; i < n; i++) codes[i] = codeOf[src.codes[i]!]!;
    return { field: { kind: 'single', dict: [...VERDICT_ORDER.map((v) => termOf(v)!.label), ''], codes }, bySource: codeOf };
  }
}
