/**
 * Keeps the view state with VS Code (setState, so a hidden or reloaded panel comes back as it
 * was) and tells the host (the serializer's copy), at most every PERSIST_DELAY_MS.
 */
import type { PanelIdentity, ViewState } from '../../src/shared/protocol';
import { sanitizeViewState } from './viewState';
import { post, vscodeApi } from './vscode';

const PERSIST_DELAY_MS = 250;

export interface PersistSource {
  readonly state: ViewState;
  readonly scrollTop: number;
  readonly focused: number;
  /** A restore still waiting for its rows keeps its targets. */
  readonly pendingRestore: { scrollTop: number; focused: number | undefined } | undefined;
}

export class Persistence {
  identity: PanelIdentity | undefined;
  private timer = 0;

  constructor(private readonly source: () => PersistSource) {
    // A change still waiting for its delay is saved when the page goes away (a window reload
    // within PERSIST_DELAY_MS of a sort would otherwise come back with the sort before it).
    window.addEventListener('pagehide', () => {
      if (this.timer) this.now();
    });
  }

  private current(): ViewState {
    const src = this.source();
    const v: ViewState = { ...src.state, scrollTop: Math.max(0, Math.round(src.scrollTop)) };
    delete v.focused;
    if (src.focused >= 0) v.focused = src.focused;
    if (src.pendingRestore) {
      v.scrollTop = src.pendingRestore.scrollTop;
      if (src.pendingRestore.focused !== undefined) v.focused = src.pendingRestore.focused;
    }
    return sanitizeViewState(v);
  }

  schedule(): void {
    if (!this.identity) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.now(), PERSIST_DELAY_MS);
  }

  now(): void {
    if (!this.identity) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = 0;
    const view = this.current();
    vscodeApi.setState({ identity: this.identity, view });
    post({ type: 'saveState', state: view });
  }
}
