/** Rows, emails, the email-weighted DMARC pass rate and emails by category and disposition of a set of rows. */
import type { RowStore } from './store';

export interface Summary {
  rows: number;
  emails: number;
  passEmails: number;
  /** Email-weighted: passing emails / emails; NaN without emails. */
  passRate: number;
  byCategory: { value: string; emails: number }[];
  byDisposition: { value: string; emails: number }[];
}

const collator = new Intl.Collator(undefined);

function byValue(s: RowStore, column: 'category' | 'dmarc', rows: Uint32Array): { value: string; emails: number }[] {
  const sums = s.sumBy(column, rows, s.emails);
  return [...sums].map(([value, emails]) => ({ value, emails })).filter((x) => x.emails > 0).sort((a, b) => b.emails - a.emails || collator.compare(a.value, b.value));
}

export function summarize(s: RowStore, rows: Uint32Array): Summary {
  let emails = 0;
  let passEmails = 0;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    const e = s.emails[i]!;
    emails += e;
    if (s.dmarcPass[i]) passEmails += e;
  }
  return {
    rows: rows.length,
    emails,
    passEmails,
    passRate: emails > 0 ? passEmails / emails : Number.NaN,
    byCategory: byValue(s, 'category', rows),
    byDisposition: byValue(s, 'dmarc', rows),
  };
}
