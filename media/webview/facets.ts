/**
 * The facet filters: one group per FACETS entry, each value a checkbox with the emails (or rows,
 * by the switch at the top) it would match given the search and the other filters. Values within
 * a facet combine with OR, facets with AND. Facets with many values (TOP_FACETS) show their top
 * values and a filter box. The option list is keyboard navigable as one unit (Up/Down, Space).
 */
import * as l10n from '@vscode/l10n';
import { FACETS, TOP_FACETS, type FacetId } from '../../src/shared/columns';
import type { FacetOption } from './data/facetOptions';
import { badge, el, icon } from './dom';
import { FACET_LABELS, formatCount, plural, revealBidi } from './format';
import { valueHelp } from './valueHelp';

export type CountWeight = 'emails' | 'rows';

export interface FacetsHost {
  onToggle(facet: FacetId, key: string): void;
  onClear(facet: FacetId | undefined): void;
  onWeight(weight: CountWeight): void;
}

/** Values a top facet shows before "Show more". */
const TOP_SHOWN = 6;
const TOP_MORE = 50;

/** Facets shown only when some row has a value (the receiver's override: report files' rows only). */
const SHOWN_WITH_VALUES: ReadonlySet<FacetId> = new Set<FacetId>(['override']);

interface Group {
  element: HTMLElement;
  list: HTMLElement;
  clear: HTMLButtonElement;
  filter?: HTMLInputElement;
  more?: HTMLButtonElement;
  expanded: boolean;
  keys: string;
}

export class FacetsPanel {
  readonly element: HTMLElement;
  private readonly groups = new Map<FacetId, Group>();
  private readonly clearAll: HTMLButtonElement;
  private readonly weightButtons: Record<CountWeight, HTMLButtonElement>;
  private weight: CountWeight = 'emails';
  private last: Record<FacetId, FacetOption[]> | undefined;

  constructor(private readonly host: FacetsHost) {
    this.element = el('nav', { class: 'facets', attrs: { 'aria-label': l10n.t('Filters'), 'data-testid': 'facets' } });
    const header = el('div', { class: 'pane-header' });
    this.clearAll = el('button', { class: 'link-button', text: l10n.t('Clear all'), attrs: { type: 'button', 'data-testid': 'facets-clear' } });
    this.clearAll.addEventListener('click', () => {
      this.clearFilterText();
      this.host.onClear(undefined);
    });
    header.append(el('span', { class: 'pane-title', text: l10n.t('Filters') }), el('span', { class: 'spacer' }), this.clearAll);
    const switcher = el('div', { class: 'segmented', attrs: { role: 'radiogroup', 'aria-label': l10n.t('Facet counts show'), 'data-testid': 'facet-weight' } });
    const mk = (w: CountWeight, label: string): HTMLButtonElement => {
      const b = el('button', { class: 'segment', text: label, attrs: { type: 'button', role: 'radio', 'data-weight': w } });
      b.addEventListener('click', () => this.host.onWeight(w));
      switcher.append(b);
      return b;
    };
    this.weightButtons = { emails: mk('emails', l10n.t('Emails')), rows: mk('rows', l10n.t('Rows')) };
    const countsRow = el('div', { class: 'facet-weight' }, [el('span', { class: 'muted', text: l10n.t('Counts:') }), switcher]);
    this.element.append(header, countsRow);
    const body = el('div', { class: 'facets-body' });
    for (const f of FACETS) body.append(this.group(f));
    body.addEventListener('keydown', (e) => this.onKey(e));
    this.element.append(body);
    this.setWeight('emails');
  }

  private group(f: FacetId): HTMLElement {
    const group = el('div', { class: 'facet-group', attrs: { role: 'group', 'aria-labelledby': `facet-title-${f}`, 'data-facet-group': f } });
    const title = el('div', { class: 'facet-title' });
    const clear = el('button', { class: 'link-button', text: l10n.t('Clear'), attrs: { type: 'button', 'aria-label': l10n.t('Clear the {0} filter', FACET_LABELS[f]) } });
    clear.addEventListener('click', () => this.host.onClear(f));
    title.append(el('span', { text: FACET_LABELS[f], attrs: { id: `facet-title-${f}` } }), clear);
    const list = el('div', { class: 'facet-options' });
    const g: Group = { element: group, list, clear, expanded: false, keys: '' };
    group.append(title);
    if (TOP_FACETS.includes(f)) {
      g.filter = el('input', { class: 'facet-filter', attrs: { type: 'text', placeholder: l10n.t('Filter {0}', FACET_LABELS[f]), 'aria-label': l10n.t('Filter the {0} values', FACET_LABELS[f]), 'data-testid': `facet-filter-${f}`, spellcheck: 'false', autocomplete: 'off', maxlength: 200 } });
      g.filter.addEventListener('input', () => this.renderGroup(f, true));
      g.more = el('button', { class: 'link-button facet-more', attrs: { type: 'button', 'data-testid': `facet-more-${f}` } });
      g.more.addEventListener('click', () => {
        g.expanded = !g.expanded;
        this.renderGroup(f, true);
      });
      group.append(g.filter, list, g.more);
    } else {
      group.append(list);
    }
    this.groups.set(f, g);
    return group;
  }

  /** Empties the filter boxes of the top facets (Clear all, Clear Search and Filters): a box left with text would keep hiding values. */
  clearFilterText(): void {
    for (const [f, g] of this.groups) {
      if (!g.filter || (g.filter.value === '' && !g.expanded)) continue;
      g.filter.value = '';
      g.expanded = false;
      this.renderGroup(f, true);
    }
  }

  setWeight(weight: CountWeight): void {
    this.weight = weight;
    for (const [w, b] of Object.entries(this.weightButtons)) {
      b.setAttribute('aria-checked', String(w === weight));
      b.classList.toggle('active', w === weight);
    }
    this.element.dataset.weight = weight;
    if (this.last) this.update(this.last, true);
  }

  /** Bumped by each update(): an updateLater() made before one is not needed. */
  private seq = 0;

  /**
   * update() with the facets of the view then (`current`) once the next frame is painted: after a
   * keystroke the rows and their count answer in that frame, the filters' counts follow with the
   * trend and groups (Analysis.later; at a million rows counting them took a fifth of a keystroke,
   * laying them out much of its frame). Calls made before it runs are one.
   */
  updateLater(current: () => Record<FacetId, FacetOption[]>): void {
    const seq = this.seq;
    const run = (): void => {
      if (seq === this.seq) this.update(current());
    };
    requestAnimationFrame(() => setTimeout(run, 0));
    // rAF does not run while the panel is hidden.
    setTimeout(run, 100);
  }

  update(facets: Record<FacetId, FacetOption[]>, force = false): void {
    this.seq++;
    this.last = facets;
    let anyActive = false;
    for (const f of FACETS) anyActive = this.renderGroup(f, force) || anyActive;
    this.clearAll.hidden = !anyActive;
    this.ensureTabStop();
  }

  /** The options shown for a facet: all, or (top facets) those matching the filter box, the top ones first. */
  private shown(options: FacetOption[], g: Group): { list: FacetOption[]; hidden: number } {
    if (!g.filter) return { list: options, hidden: 0 };
    const q = g.filter.value.trim().toLowerCase();
    const matching = q ? options.filter((o) => o.selected || o.key.toLowerCase().includes(q)) : options;
    const limit = g.expanded ? TOP_MORE : TOP_SHOWN;
    // Selected values always stay in sight, so they can be cleared.
    const list = matching.filter((o, k) => k < limit || o.selected);
    return { list, hidden: matching.length - list.length };
  }

  private renderGroup(f: FacetId, force: boolean): boolean {
    const g = this.groups.get(f)!;
    const options = this.last?.[f] ?? [];
    const { list, hidden } = this.shown(options, g);
    const keys = JSON.stringify(list.map((o) => o.key));
    if (force || keys !== g.keys) {
      const focusedKey = (document.activeElement as HTMLElement | null)?.closest?.(`[data-facet="${f}"]`)?.getAttribute('data-value');
      g.list.replaceChildren(...list.map((o) => this.option(f, o)));
      g.keys = keys;
      if (focusedKey !== undefined && focusedKey !== null) {
        for (const n of g.list.children) if ((n as HTMLElement).dataset.value === focusedKey) (n as HTMLElement).focus();
      }
      if (list.length === 0) g.list.append(el('div', { class: 'muted facet-empty', text: options.length ? l10n.t('No matching values') : l10n.t('No values') }));
    } else {
      list.forEach((o, k) => this.paint(g.list.children[k] as HTMLElement, o));
    }
    if (g.more) {
      g.more.hidden = hidden === 0 && !g.expanded;
      g.more.textContent = g.expanded ? l10n.t('Show fewer') : l10n.t('Show {0} more', formatCount(Math.min(hidden, TOP_MORE - TOP_SHOWN)));
    }
    const active = options.some((o) => o.selected);
    g.clear.hidden = !active;
    if (SHOWN_WITH_VALUES.has(f)) g.element.hidden = !active && options.every((o) => o.key === '' || o.key === '(none)');
    return active;
  }

  private paint(element: HTMLElement, o: FacetOption): void {
    element.setAttribute('aria-checked', String(o.selected));
    element.classList.toggle('checked', o.selected);
    element.classList.toggle('zero', o.count === 0);
    const n = this.weight === 'emails' ? o.emails : o.count;
    const count = element.querySelector('.count')!;
    count.textContent = formatCount(n);
    (count as HTMLElement).dataset.rows = String(o.count);
    (count as HTMLElement).dataset.emails = String(o.emails);
    const what = this.weight === 'emails' ? plural(n, l10n.t('email'), l10n.t('emails')) : plural(n, l10n.t('row'), l10n.t('rows'));
    // The option's value is report data: its bidirectional controls show as escapes here too.
    element.setAttribute('aria-label', revealBidi(`${o.label}: ${what}`));
    const help = valueHelp(element.dataset.facet as FacetId, o.key);
    element.title = revealBidi(`${help ?? o.label}\n${l10n.t('{0} in {1}', plural(o.emails, l10n.t('email'), l10n.t('emails')), plural(o.count, l10n.t('row'), l10n.t('rows')))}`);
  }

  private option(f: FacetId, o: FacetOption): HTMLElement {
    const element = el('div', { class: 'facet-option', attrs: { role: 'checkbox', tabindex: -1, 'data-facet': f, 'data-value': o.key, 'aria-checked': String(o.selected) } });
    const box = el('span', { class: 'checkbox' }, [icon('check')]);
    const plain = TOP_FACETS.includes(f) || o.key === '(none)';
    const label = plain ? el('span', { class: `facet-label${o.key === '(none)' || o.key === '' ? ' muted' : ''}`, text: o.label }) : el('span', { class: 'facet-label' }, [badge(f, o.key)]);
    element.append(box, label, el('span', { class: 'count' }));
    this.paint(element, o);
    element.addEventListener('click', () => {
      this.setTabStop(element);
      this.host.onToggle(f, o.key);
    });
    return element;
  }

  private all(): HTMLElement[] {
    return [...this.element.querySelectorAll<HTMLElement>('.facet-option')];
  }

  private setTabStop(target: HTMLElement): void {
    for (const o of this.all()) o.tabIndex = o === target ? 0 : -1;
  }

  private ensureTabStop(): void {
    const all = this.all();
    if (all.length && !all.some((o) => o.tabIndex === 0)) all[0]!.tabIndex = 0;
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    if (!target.classList.contains('facet-option')) return;
    const all = this.all();
    const k = all.indexOf(target);
    let next = -1;
    if (e.key === 'ArrowDown') next = Math.min(all.length - 1, k + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, k - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = all.length - 1;
    else if (e.key === ' ' || e.key === 'Enter') {
      e.preventDefault();
      target.click();
      return;
    } else return;
    e.preventDefault();
    const n = all[next];
    if (n) {
      this.setTabStop(n);
      n.focus();
    }
  }
}
