/**
 * A small popup menu in VS Code's look (the table's context menu, the columns menu): keyboard
 * navigable, closes on Escape, on a click outside and on blur.
 */
import * as l10n from '@vscode/l10n';
import { el, icon } from './dom';

export interface MenuItem {
  label: string;
  action: string;
  /** Shown as a checkbox item (menuitemcheckbox) when defined. */
  checked?: boolean;
  disabled?: boolean;
  /** Keep the menu open after choosing (checkbox lists). */
  keepOpen?: boolean;
  attrs?: Record<string, string>;
}

export type MenuEntry = MenuItem | 'separator';

let open: Menu | undefined;

export class Menu {
  readonly element: HTMLDivElement;
  private items: HTMLElement[] = [];
  /** Set while the items are rebuilt in place, when focus briefly leaves them. */
  private rebuilding = false;
  /** Where focus was when the menu opened, to go back to on Escape. */
  private returnFocus: HTMLElement | undefined;
  private readonly onDocPointer = (e: Event): void => {
    if (!this.element.contains(e.target as Node) && !(this.opener && this.opener.contains(e.target as Node))) this.close();
  };

  constructor(
    private readonly entries: () => MenuEntry[],
    private readonly onChoose: (action: string) => void,
    private readonly opts: { testid: string; label: string; opener?: HTMLElement } = { testid: 'menu', label: l10n.t('Menu') },
  ) {
    this.element = el('div', { class: 'menu', attrs: { role: 'menu', 'aria-label': opts.label, 'data-testid': opts.testid, tabindex: -1 } });
    this.element.addEventListener('keydown', (e) => this.onKey(e));
    this.element.addEventListener('focusout', (e) => {
      if (!this.rebuilding && !this.element.contains(e.relatedTarget as Node)) this.close();
    });
    this.element.addEventListener('contextmenu', (e) => e.preventDefault());
  }

  private get opener(): HTMLElement | undefined {
    return this.opts.opener;
  }

  get isOpen(): boolean {
    return open === this;
  }

  /** Opens at client coordinates (clamped into the window). */
  showAt(x: number, y: number): void {
    open?.close();
    open = this;
    this.returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    this.build();
    document.body.append(this.element);
    const r = this.element.getBoundingClientRect();
    const left = Math.max(4, Math.min(x, window.innerWidth - r.width - 4));
    const top = y + r.height > window.innerHeight - 4 ? Math.max(4, y - r.height) : y;
    this.element.style.left = `${left}px`;
    this.element.style.top = `${top}px`;
    this.opener?.setAttribute('aria-expanded', 'true');
    document.addEventListener('pointerdown', this.onDocPointer, true);
    this.focusItem(this.items.findIndex((i) => i.getAttribute('aria-disabled') !== 'true'));
  }

  /** Opens below an element (a toolbar button). */
  showBelow(anchor: HTMLElement): void {
    const r = anchor.getBoundingClientRect();
    this.showAt(r.left, r.bottom + 2);
  }

  close(focusOpener = false): void {
    if (open !== this) return;
    open = undefined;
    document.removeEventListener('pointerdown', this.onDocPointer, true);
    this.opener?.setAttribute('aria-expanded', 'false');
    this.element.remove();
    if (focusOpener) (this.opener ?? this.returnFocus)?.focus({ preventScroll: true });
  }

  private build(): void {
    this.element.replaceChildren();
    this.items = [];
    for (const entry of this.entries()) {
      if (entry === 'separator') {
        this.element.append(el('div', { class: 'menu-separator', attrs: { role: 'separator' } }));
        continue;
      }
      const checkbox = entry.checked !== undefined;
      const item = el('div', {
        class: 'menu-item',
        attrs: {
          role: checkbox ? 'menuitemcheckbox' : 'menuitem',
          tabindex: -1,
          'data-action': entry.action,
          'aria-checked': checkbox ? String(entry.checked) : undefined,
          'aria-disabled': entry.disabled ? 'true' : undefined,
          ...entry.attrs,
        },
      });
      item.append(el('span', { class: 'menu-check' }, checkbox && entry.checked ? [icon('check')] : []), el('span', { class: 'menu-label', text: entry.label }));
      item.addEventListener('click', (e) => {
        e.stopPropagation();
        this.choose(item, entry);
      });
      item.addEventListener('pointermove', () => {
        if (document.activeElement !== item) this.focusItem(this.items.indexOf(item));
      });
      this.element.append(item);
      this.items.push(item);
    }
  }

  private choose(item: HTMLElement, entry: MenuItem): void {
    if (entry.disabled) return;
    if (entry.keepOpen) {
      const index = this.items.indexOf(item);
      this.onChoose(entry.action);
      this.rebuilding = true;
      this.build();
      this.focusItem(index);
      this.rebuilding = false;
      return;
    }
    this.close(true);
    this.onChoose(entry.action);
  }

  private focusItem(k: number): void {
    const item = this.items[k];
    if (item) item.focus();
    else this.element.focus();
  }

  private onKey(e: KeyboardEvent): void {
    const k = this.items.indexOf(document.activeElement as HTMLElement);
    const step = (d: number): void => {
      const n = this.items.length;
      for (let i = 1; i <= n; i++) {
        const j = (k + d * i + n * 2) % n;
        if (this.items[j]!.getAttribute('aria-disabled') !== 'true') {
          this.focusItem(j);
          return;
        }
      }
    };
    switch (e.key) {
      case 'ArrowDown':
        step(1);
        break;
      case 'ArrowUp':
        step(k < 0 ? 0 : -1);
        break;
      case 'Home':
        this.focusItem(0);
        break;
      case 'End':
        this.focusItem(this.items.length - 1);
        break;
      case 'Escape':
      case 'Tab':
        this.close(true);
        break;
      case 'Enter':
      case ' ': {
        const item = this.items[k];
        if (item) item.click();
        break;
      }
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  }
}
