/**
 * The facet filters: one group per FACETS entry, each value a checkbox with the number of rows
 * it would match given the search and the other facets. Values within a facet combine with OR,
 * facets with AND. The option list is keyboard navigable as one unit (Up/Down, Space).
 */
import { FACETS, type FacetId } from '../../src/shared/columns';
import { badge, el, icon } from './dom';
import { FACET_LABELS, formatCount } from './format';
import type { FacetOption } from './model';

export interface FacetsHost {
  onToggle(facet: FacetId, key: string): void;
  onClear(facet: FacetId | undefined): void;
}

interface OptionEl {
  element: HTMLElement;
  count: HTMLElement;
}

export class FacetsPanel {
  readonly element: HTMLElement;
  private readonly groups = new Map<FacetId, { list: HTMLElement; clear: HTMLButtonElement; options: Map<string, OptionEl>; keys: string }>();
  private readonly clearAll: HTMLButtonElement;

  constructor(private readonly host: FacetsHost) {
    this.element = el('nav', { class: 'facets', attrs: { 'aria-label': 'Filters', 'data-testid': 'facets' } });
    const header = el('div', { class: 'pane-header' });
    this.clearAll = el('button', { class: 'link-button', text: 'Clear all', attrs: { type: 'button', 'data-testid': 'facets-clear' } });
    this.clearAll.addEventListener('click', () => this.host.onClear(undefined));
    header.append(el('span', { class: 'pane-title', text: 'Filters' }), el('span', { class: 'spacer' }), this.clearAll);
    this.element.append(header);
    const body = el('div', { class: 'facets-body' });
    for (const f of FACETS) {
      const group = el('div', { class: 'facet-group', attrs: { role: 'group', 'aria-labelledby': `facet-title-${f}` } });
      const title = el('div', { class: 'facet-title' });
      const clear = el('button', { class: 'link-button', text: 'Clear', attrs: { type: 'button', 'aria-label': `Clear the ${FACET_LABELS[f]} filter` } });
      clear.addEventListener('click', () => this.host.onClear(f));
      title.append(el('span', { text: FACET_LABELS[f], attrs: { id: `facet-title-${f}` } }), clear);
      const list = el('div', { class: 'facet-options' });
      group.append(title, list);
      body.append(group);
      this.groups.set(f, { list, clear, options: new Map(), keys: '' });
    }
    body.addEventListener('keydown', (e) => this.onKey(e));
    this.element.append(body);
  }

  update(facets: Record<FacetId, FacetOption[]>): void {
    let anyActive = false;
    for (const f of FACETS) {
      const g = this.groups.get(f)!;
      const options = facets[f] ?? [];
      const keys = JSON.stringify(options.map((o) => o.key));
      if (keys !== g.keys) {
        // The set of values changed (more rows arrived): rebuild, keeping focus where it was.
        const focusedKey = (document.activeElement as HTMLElement | null)?.closest?.(`[data-facet="${f}"]`)?.getAttribute('data-value');
        g.options.clear();
        g.list.replaceChildren();
        for (const o of options) {
          const opt = this.option(f, o);
          g.options.set(o.key, opt);
          g.list.append(opt.element);
        }
        g.keys = keys;
        if (focusedKey !== undefined && focusedKey !== null) g.options.get(focusedKey)?.element.focus();
      }
      let active = false;
      for (const o of options) {
        const opt = g.options.get(o.key)!;
        opt.element.setAttribute('aria-checked', String(o.selected));
        opt.element.classList.toggle('checked', o.selected);
        opt.element.classList.toggle('zero', o.count === 0);
        opt.count.textContent = formatCount(o.count);
        opt.element.setAttribute('aria-label', `${o.label}: ${o.count} rows`);
        active ||= o.selected;
      }
      g.clear.hidden = !active;
      anyActive ||= active;
      if (options.length === 0 && !g.list.firstChild) g.list.append(el('div', { class: 'muted facet-empty', text: 'No values' }));
    }
    this.clearAll.hidden = !anyActive;
    this.ensureTabStop();
  }

  private option(f: FacetId, o: FacetOption): OptionEl {
    const element = el('div', {
      class: 'facet-option',
      attrs: { role: 'checkbox', tabindex: -1, 'data-facet': f, 'data-value': o.key, 'aria-checked': String(o.selected) },
      title: o.label,
    });
    const box = el('span', { class: 'checkbox' }, [icon('check')]);
    const label = f === 'dkim' && o.label === '(none)' ? el('span', { class: 'facet-label muted', text: o.label }) : el('span', { class: 'facet-label' }, [badge(f, o.key)]);
    const count = el('span', { class: 'count' });
    element.append(box, label, count);
    element.addEventListener('click', () => {
      this.setTabStop(element);
      this.host.onToggle(f, o.key);
    });
    return { element, count };
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
