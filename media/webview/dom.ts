/**
 * DOM building blocks. Everything on screen is made with createElement and textContent: record
 * fields come from strangers, so no string is ever parsed as HTML, and bidirectional control
 * characters in them are shown as escapes (revealBidi).
 */
import type { ColumnId, FacetId } from '../../src/shared/columns';
import { revealBidi, toneIcon, toneOf, valueLabel } from './format';

export interface Props {
  class?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string | number | boolean | undefined>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, children: (Node | string)[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.text !== undefined) node.textContent = revealBidi(props.text);
  if (props.title !== undefined) node.title = revealBidi(props.title);
  if (props.attrs) {
    for (const [k, v] of Object.entries(props.attrs)) {
      if (v === undefined || v === false) continue;
      // A label is read out like text, and may hold report data (a chip's value).
      node.setAttribute(k, v === true ? '' : k === 'aria-label' ? revealBidi(String(v)) : String(v));
    }
  }
  for (const c of children) node.append(c);
  return node;
}

/** A codicon glyph; decorative, so hidden from screen readers. */
export function icon(name: string, extraClass = ''): HTMLSpanElement {
  return el('span', { class: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

/** A button with an optional codicon and text. */
export function button(text: string, opts: { icon?: string; class?: string; title?: string; testid?: string } = {}): HTMLButtonElement {
  const b = el('button', { class: opts.class ?? 'button', attrs: { type: 'button', 'data-testid': opts.testid } });
  if (opts.title) b.title = opts.title;
  if (opts.icon) b.append(icon(opts.icon));
  if (text) b.append(el('span', { class: 'button-label', text }));
  return b;
}

/** An icon-only toolbar button, labelled for screen readers. */
export function iconButton(name: string, label: string, testid?: string): HTMLButtonElement {
  const b = el('button', { class: 'icon-button', title: label, attrs: { type: 'button', 'aria-label': label, 'data-testid': testid } });
  b.append(icon(name));
  return b;
}

/** A coloured result badge: an icon (so colour is never the only signal) and the value as text. */
export function badge(column: ColumnId | FacetId, value: string): HTMLSpanElement {
  const tone = toneOf(column, value);
  const b = el('span', { class: `badge tone-${tone}` });
  b.append(icon(toneIcon(tone)), el('span', { class: 'badge-text', text: valueLabel(value) }));
  return b;
}

/** Result text coloured like its badge, without the pill (the DKIM cell lists several). */
export function toneText(column: ColumnId | FacetId, value: string): HTMLSpanElement {
  return el('span', { class: `tone-text tone-${toneOf(column, value)}`, text: valueLabel(value) });
}

export function isMac(): boolean {
  return /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
}

/** Ctrl on Windows/Linux, Cmd on macOS. */
export function primaryModifier(e: MouseEvent | KeyboardEvent): boolean {
  return isMac() ? e.metaKey : e.ctrlKey;
}
