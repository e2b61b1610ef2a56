/**
 * The panel's Advice, DOM-free: the rows shown (after the search, the facets and the day range)
 * fed to the same tally as the tree's Health (src/advice/tally.ts), from the table's columns: the
 * class and reasons the host computed per row, the source, Header From, disposition and emails.
 *
 * Compliant rows (most of them) only add to mixes: they are summed per (source, Header From)
 * first and given to the tally once per pair. The failing rows go in one by one, with what their
 * fix names (Return-Path, IP, signatures), read from the cells of those rows only. The owner's
 * marks (`opts.marks`) map the classes in the tally, as for the tree.
 */
import { AdviceTally, type PeriodHealth, type TallyOptions } from '../../../src/advice/tally';
import { CLASS_INDEX } from '../../../src/advice/verdict';
import { adviceCode } from './adviceLabels';
import type { FieldCodes, FieldIndex } from './fieldTypes';
import type { RecordsModel } from './query';
import { classIndexes, NO_CLASS } from './rowClasses';

const COMPLIANT = CLASS_INDEX.compliant;

/** Per dictionary code of a single-valued field, the advice code its label stands for. */
function codesOf(field: FieldIndex): string[] {
  return field.dict.map((label) => adviceCode(label) ?? '');
}

/** Single-valued fields only (these all are): a multi-valued one would have no `codes[i]` per row. */
function single(field: FieldIndex): FieldCodes {
  if (field.kind !== 'single') throw new Error('a single-valued field was expected');
  return field.codes;
}

export function computeAdvice(rows: Uint32Array, model: RecordsModel, opts: TallyOptions): PeriodHealth {
  const store = model.store;
  const f = model.fields;
  const clsField = f.get('rowClass');
  const srcField = f.get('source');
  const fromField = f.get('visibleFrom');
  const spfField = f.get('spfReason');
  const dkimField = f.get('dkimReason');
  const cls = single(clsField);
  const src = single(srcField);
  const from = single(fromField);
  const spf = single(spfField);
  const dkim = single(dkimField);
  const classOf = classIndexes(clsField);
  const spfCodes = codesOf(spfField);
  const dkimCodes = codesOf(dkimField);
  const srcDict = srcField.dict;
  const fromDict = fromField.dict;
  const emails = store.emails;
  const disposition = store.disposition;
  const tally = new AdviceTally(false, opts.marks);
  // Compliant rows per (source, Header From): emails and rows.
  const width = fromDict.length + 1;
  const pairs = new Map<number, [number, number]>();
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    const c = classOf[cls[i]!]!;
    if (c === NO_CLASS) continue;
    if (c === COMPLIANT) {
      const key = src[i]! * width + from[i]!;
      const p = pairs.get(key);
      if (p) {
        p[0] += emails[i]!;
        p[1]++;
      } else pairs.set(key, [emails[i]!, 1]);
      continue;
    }
    tally.add(
      srcDict[src[i]!] ?? '', store.cell(i, 'ipAddress'), fromDict[from[i]!] ?? '', store.cell(i, 'returnPath'),
      c, spfCodes[spf[i]!] ?? '', dkimCodes[dkim[i]!] ?? '', disposition[i]!, emails[i]!, () => store.dkims(i),
    );
  }
  for (const [key, [n, count]] of pairs) {
    const s = Math.floor(key / width);
    tally.add(srcDict[s] ?? '', '', fromDict[key - s * width] ?? '', '', COMPLIANT, '', '', 0, n, NO_SIGNATURES, count);
  }
  return tally.finish(opts);
}

const NO_SIGNATURES = (): readonly never[] => [];
