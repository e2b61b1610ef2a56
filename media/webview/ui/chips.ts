/**
 * The chips of the filters the analysis sets (the days chosen on the trend, the groups chosen in
 * the groups table), each with a button that removes it.
 */
import * as l10n from '@vscode/l10n';
import type { ViewState } from '../../../src/shared/protocol';
import type { Trend } from '../data/trend';
import { el, iconButton } from '../dom';
import { formatDay, groupLabel, valueLabel } from '../format';
import { bucketLabel } from '../trend';

export function renderChips(target: HTMLElement, s: ViewState, trend: Trend | undefined, change: (patch: Partial<ViewState>) => void): void {
  const chips: HTMLElement[] = [];
  const chip = (label: string, testid: string, remove: () => void): HTMLElement => {
    const x = iconButton('close', l10n.t('Remove the filter {0}', label), `${testid}-remove`);
    x.addEventListener('click', remove);
    return el('span', { class: 'chip', attrs: { role: 'listitem', 'data-testid': testid } }, [el('span', { class: 'chip-label', text: label }), x]);
  };
  if (s.days && trend) {
    const t = trend;
    const a = bucketLabel(t.unit, Math.max(s.days.startMs, t.rangeStartMs));
    const b = t.unit === 'day' ? formatDay(s.days.endMs) : bucketLabel(t.unit, s.days.endMs - (t.unit === 'hour' ? 3_599_999 : 604_799_999));
    chips.push(chip(a === b ? l10n.t('Date: {0}', a) : l10n.t('Date: {0} – {1}', a, b), 'chip-days', () => change({ days: undefined })));
  }
  s.groups.forEach((g, k) => {
    chips.push(chip(`${groupLabel(g.field)}: ${valueLabel(g.key)}`, `chip-group-${k}`, () => change({ groups: s.groups.filter((_, j) => j !== k) })));
  });
  target.replaceChildren(...chips);
  target.hidden = chips.length === 0;
}
