/**
 * The webview's side of the channel to the extension host: the VS Code API handle, typed
 * postMessage, and requests that wait for their `response` by id.
 */
import type { WebviewMessage } from '../../src/shared/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** acquireVsCodeApi may be called once per page. */
export const vscodeApi: VsCodeApi = acquireVsCodeApi();

export function post(message: WebviewMessage): void {
  vscodeApi.postMessage(message);
}

type Request = Extract<WebviewMessage, { requestId: number }>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

/** Posts a request and resolves with the host's result, or rejects with its error text. */
export function request<T>(message: DistributiveOmit<Request, 'requestId'>): Promise<T> {
  const requestId = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(requestId, { resolve: resolve as (v: unknown) => void, reject });
    post({ ...message, requestId } as Request);
  });
}

/** Routes a `response` message to its request; unknown ids are ignored. */
export function settle(response: { requestId: number; ok: boolean; result?: unknown; error?: string }): void {
  const p = pending.get(response.requestId);
  if (!p) return;
  pending.delete(response.requestId);
  if (response.ok) p.resolve(response.result);
  else p.reject(new Error(typeof response.error === 'string' && response.error ? response.error : 'The request failed.'));
}
