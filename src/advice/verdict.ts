/**
 * A group's verdict from its mix (emails per class): Compliant when DMARC passes for at least
 * the threshold's share of its emails (98% by default, `dmarc.advice.compliantShare`), otherwise
 * the class holding most of its failing emails, ties going to Needs fixing, then Unauthenticated,
 * then Forwarded (what asks for action first). A group without emails has none.
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`.
 */
import { ROW_CLASSES, type RowClass, type Verdict } from './vocabulary';

/** Emails per class, at the positions of ROW_CLASSES. */
export type Mix = [compliant: number, forwarded: number, needsFixing: number, unauthenticated: number];

export const CLASS_INDEX: Readonly<Record<RowClass, number>> = { compliant: 0, forwarded: 1, 'needs-fixing': 2, unauthenticated: 3 };

export const emptyMix = (): Mix => [0, 0, 0, 0];

/** The failing classes in the order ties are broken. */
const TIE_ORDER = [CLASS_INDEX['needs-fixing'], CLASS_INDEX.unauthenticated, CLASS_INDEX.forwarded];

export function verdictOf(mix: ArrayLike<number>, compliantShare: number): Verdict {
  const total = mix[0]! + mix[1]! + mix[2]! + mix[3]!;
  if (!(total > 0)) return '';
  const bar = Math.min(1, Math.max(0, compliantShare));
  if (mix[0]! >= bar * total) return 'compliant';
  let best = TIE_ORDER[0]!;
  for (const i of TIE_ORDER) if (mix[i]! > mix[best]!) best = i;
  // Every failing class empty while the share is under the bar cannot happen (bar ≤ 1).
  return ROW_CLASSES[best]!;
}

/** Emails that do not pass DMARC in a mix. */
export const failingEmails = (mix: ArrayLike<number>): number => mix[1]! + mix[2]! + mix[3]!;
