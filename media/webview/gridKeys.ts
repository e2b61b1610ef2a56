/**
 * The records grid's keyboard: arrows, Page Up/Down, Home/End move the focused row (Shift extends,
 * Ctrl/Cmd moves without selecting), Space toggles, Ctrl/Cmd+A selects all, Escape clears, the
 * context-menu key opens the row menu. And the page's own: Ctrl/Cmd+F and Copy (wireDocumentKeys).
 */
import { primaryModifier } from './dom';
import type { App } from './main';
import type { NavKey } from './selection';

export function onGridKey(app: App, e: KeyboardEvent): boolean {
  const mods = { shift: e.shiftKey, ctrl: primaryModifier(e) };
  const nav: Record<string, NavKey> = { ArrowUp: 'up', ArrowDown: 'down', PageUp: 'pageUp', PageDown: 'pageDown', Home: 'home', End: 'end' };
  const key = nav[e.key];
  if (key) {
    app.selection.navigate(app.view, key, mods, app.table.pageSize());
    app.afterSelection(true);
    return true;
  }
  if (e.key === ' ') {
    if (app.selection.focus < 0 || (app.view.posOf[app.selection.focus] ?? -1) < 0) app.selection.navigate(app.view, 'home', { shift: false, ctrl: false }, 1);
    else app.selection.toggleFocused();
    app.afterSelection(true);
    return true;
  }
  if (mods.ctrl && (e.key === 'a' || e.key === 'A')) {
    app.selection.selectAll(app.view);
    app.afterSelection(false);
    return true;
  }
  if (e.key === 'Escape' && app.selection.count > 0) {
    app.selection.clear();
    app.afterSelection(false);
    return true;
  }
  if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
    const pos = app.selection.focus >= 0 ? app.view.posOf[app.selection.focus] ?? -1 : -1;
    const rect = pos >= 0 ? app.table.rowRect(pos) : undefined;
    const box = rect ?? app.table.element.getBoundingClientRect();
    app.contextMenu.showAt(box.left + 24, box.top + (rect ? rect.height : 24));
    return true;
  }
  return false;
}

/** The page's keys beyond the grid's: Ctrl/Cmd+F to the search box, Copy on the grid to the focused row's JSON. */
export function wireDocumentKeys(app: App): void {
  document.addEventListener('keydown', (e) => {
    // Ctrl/Cmd+F: VS Code keeps the key from the browser's own find; use it for the search box.
    if (primaryModifier(e) && !e.altKey && (e.key === 'f' || e.key === 'F')) {
      e.preventDefault();
      app.toolbar.searchInput.focus();
      app.toolbar.searchInput.select();
    }
  });
  // Copy (Ctrl/Cmd+C, or VS Code's Copy command) on the grid copies the focused row's JSON.
  document.addEventListener('copy', (e) => {
    if (document.activeElement !== app.table.element) return;
    const sel = window.getSelection();
    if (sel && !sel.isCollapsed && sel.toString()) return;
    e.preventDefault();
    void app.actions.copyFocused();
  });
}
