/**
 * How the records page starts before the host has heard from it. The host posts rows as soon as
 * they come, before this script has run; VS Code hands held messages to the page once it loaded
 * or 200 ms after it began to, whichever is first, and this script (fetched through VS Code's
 * service worker) can take longer than that. A one-line script at the top of the page (the
 * nonce'd inline script in src/panel/panelHtml.ts) keeps what comes meanwhile; the app reads it
 * first. The page also carries its own copy of `init`, so the first rows are shown as they come,
 * not after the host has answered `ready`.
 */
import type { HostMessage } from '../../src/shared/protocol';

type Init = Extract<HostMessage, { type: 'init' }>;

interface EarlyWindow {
  __dmarcEarly?: unknown[];
  __dmarcEarlyListener?: (e: MessageEvent) => void;
}

/** The messages kept before this script ran, in order; from now on they are the app's to listen to. */
export function takeEarlyMessages(): unknown[] {
  const w = window as unknown as EarlyWindow;
  if (w.__dmarcEarlyListener) window.removeEventListener('message', w.__dmarcEarlyListener);
  w.__dmarcEarlyListener = undefined;
  const kept = Array.isArray(w.__dmarcEarly) ? w.__dmarcEarly.splice(0) : [];
  w.__dmarcEarly = undefined;
  return kept;
}

/** The page's copy of `init` (a data attribute the host wrote), or undefined if it is not one. */
export function bootInit(text: string | undefined): Init | undefined {
  let m: unknown;
  try {
    m = JSON.parse(text ?? '');
  } catch {
    return undefined; // the host's init message will do
  }
  return m && typeof m === 'object' && (m as { type?: unknown }).type === 'init' ? (m as Init) : undefined;
}
