/**
 * The owner's marks on sending sources: **mine** (a server of the organization's, set up or not)
 * or **not mine** (someone else's). A mark moves a source's failing rows between classes before
 * they are counted, the same for the tree's Health and the panel's Advice (tally.ts):
 *
 * - an Unauthenticated row of a source marked mine counts as Needs fixing (an unconfigured
 *   server of the owner's: its fix comes from its reasons);
 * - a Needs fixing or Forwarded row of a source marked not mine counts as Unauthenticated (it
 *   leaves the legitimate share: enforcement would stop it);
 * - a Compliant row is never changed.
 *
 * The rows' own reasons stay as they are. Marks arrive from storage (globalState) and from the
 * host's messages: `marksFrom` reads them as untrusted.
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`.
 */
import * as l10n from '@vscode/l10n';
import { CLASS_INDEX } from './verdict';
import { ROW_CLASSES, type RowClass, type Verdict } from './vocabulary';

export const SOURCE_MARKS = ['mine', 'not-mine'] as const;
export type SourceMark = (typeof SOURCE_MARKS)[number];
/** Marks by source name. */
export type Marks = ReadonlyMap<string, SourceMark>;

/** At most this many marks per organization (stored, sent, read). */
export const MAX_MARKS = 5_000;
/** A source name longer than this is not marked (the panel's identity takes sources up to 500 too). */
export const MAX_MARKED_SOURCE = 500;

export const NO_MARKS: Marks = new Map();

export const isSourceMark = (v: unknown): v is SourceMark => v === 'mine' || v === 'not-mine';

/** Whether a source name can carry a mark. */
export const markable = (source: unknown): source is string => typeof source === 'string' && source.length <= MAX_MARKED_SOURCE;

/**
 * Marks from an untrusted value: an array of `[source, mark]` pairs. Anything else is no marks; a
 * pair that is not a markable source and a mark is left out; a source given twice keeps its last
 * mark; past MAX_MARKS pairs the rest are left out.
 */
export function marksFrom(raw: unknown): Map<string, SourceMark> {
  const out = new Map<string, SourceMark>();
  if (!Array.isArray(raw)) return out;
  const n = Math.min(raw.length, MAX_MARKS);
  for (let k = 0; k < n; k++) {
    const e: unknown = raw[k];
    if (Array.isArray(e) && e.length === 2 && markable(e[0]) && isSourceMark(e[1])) out.set(e[0], e[1]);
  }
  return out;
}

/** Marks as pairs, sorted by source (what is stored and sent). */
export const markPairs = (marks: Marks): [string, SourceMark][] => [...marks].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/** Whether two sets of marks say the same. */
export function sameMarks(a: Marks, b: Marks): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [s, m] of a) if (b.get(s) !== m) return false;
  return true;
}

const FORWARDED = CLASS_INDEX.forwarded;
const NEEDS_FIXING = CLASS_INDEX['needs-fixing'];
const UNAUTHENTICATED = CLASS_INDEX.unauthenticated;

/** The class (CLASS_INDEX) a row of this class counts as, for a source with this mark. */
export function markedClass(cls: number, mark: SourceMark | undefined): number {
  if (mark === 'mine') return cls === UNAUTHENTICATED ? NEEDS_FIXING : cls;
  if (mark === 'not-mine') return cls === FORWARDED || cls === NEEDS_FIXING ? UNAUTHENTICATED : cls;
  return cls;
}

/** The row classes whose rows count as `verdict` for a source with this mark (to show a source's rows of its verdict). */
export function classesCountedAs(verdict: Verdict, mark: SourceMark | undefined): RowClass[] {
  if (!verdict) return [];
  const want = CLASS_INDEX[verdict];
  return ROW_CLASSES.filter((_, i) => markedClass(i, mark) === want);
}

/** A mark's short name: "Mine", "Not mine". */
export const markLabel = (mark: SourceMark): string => (mark === 'mine' ? l10n.t('Mine') : l10n.t('Not mine'));

/** What a mark does to a source's rows, in a sentence. */
export const markRule = (mark: SourceMark): string =>
  mark === 'mine'
    ? l10n.t('Marked as mine: its Unauthenticated mail counts as Needs fixing (a server of yours to set up).')
    : l10n.t('Marked as not mine: its Needs fixing and Forwarded mail counts as Unauthenticated (enforcement would stop it).');
