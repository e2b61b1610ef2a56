/**
 * What a records panel's webview is to show besides its rows: the load's state (loading, or an
 * error with Retry / Update API Key), the load's notices and the policy its reports state. Kept
 * so that the webview can be told again whenever it says ready. VS Code rebuilds a hidden panel's
 * page when its tab comes forward (the panel does not retain its context) and drops what was
 * posted to it while hidden: a background panel whose load failed then showed its page's own
 * "Fetching records…" for ever (issue 43). Rows need no keeping here: `init` says how many were
 * posted and the page asks for them again. No `vscode` import.
 */
import type { HostMessage } from '../shared/protocol';

type StateMessage = Extract<HostMessage, { type: 'loading' | 'error' }>;
type NoticesMessage = Extract<HostMessage, { type: 'notices' }>;
type AdviceMessage = Extract<HostMessage, { type: 'advice' }>;

export class PanelStatus {
  private state: StateMessage | undefined;
  private notices: NoticesMessage[] = [];
  private published: AdviceMessage | undefined;

  /**
   * Notes a message on its way to the webview. True when it is part of the status (told again
   * after every init); false for the rest: rows, answers, commands, and the advice's thresholds
   * and marks, which init carries as they are then.
   */
  note(m: HostMessage): boolean {
    switch (m.type) {
      case 'loading':
      case 'error':
        // A new load, or its end: the notices were the last load's. The policy stays until the next one's.
        this.state = m;
        this.notices = [];
        return true;
      case 'notices':
        this.notices.push(m);
        return true;
      case 'advice':
        if (m.published === undefined) return false;
        this.published = m;
        return true;
      default:
        return false;
    }
  }

  /**
   * Every row of the load was posted: its loading state is no news to a page rebuilt from now on
   * (init says how many rows there are, and the page asks for them), which then shows them as
   * a page that never missed a message would.
   */
  loaded(): void {
    if (this.state?.type === 'loading') this.state = undefined;
  }

  /** The status in the order it was posted: the load's state, its notices, the stated policy. */
  messages(): HostMessage[] {
    return [...(this.state ? [this.state] : []), ...this.notices, ...(this.published ? [this.published] : [])];
  }

  /**
   * The error of a load that failed after some of its rows had come, if that is the state. The
   * page keeps those rows with a note only when it has them: told again after it asked for them,
   * it is told once they were posted again.
   */
  partialError(): StateMessage | undefined {
    return this.state?.type === 'error' && (this.state.partial ?? 0) > 0 ? this.state : undefined;
  }
}
