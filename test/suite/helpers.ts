import * as vscode from 'vscode';
import manifest from '../../package.json';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Prompter } from '../../src/ui/prompter';
import type { RecordsPanel } from '../../src/panel/recordsPanel';
import { startApiServer, type ApiServer } from '../server/server';

export const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`;

export async function extensionApi(): Promise<DmarcExplorerApi> {
  const ext = vscode.extensions.getExtension<DmarcExplorerApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded`);
  return ext.activate();
}

/**
 * Answers the commands' questions from a script, in order, the way a user would: each answer to
 * an input box goes through that box's own validateInput first (an answer it rejects fails the
 * test), a quick pick answer selects the item with that label, a confirm answer is a boolean.
 */
export class ScriptedPrompter implements Prompter {
  readonly asked: { kind: string; title?: string; password?: boolean; value?: string; actions?: string[]; shown?: string }[] = [];
  constructor(private readonly answers: (string | boolean | undefined)[]) {}

  private next(kind: string): string | boolean | undefined {
    if (this.answers.length === 0) throw new Error(`unexpected ${kind}: the script has no answer left`);
    return this.answers.shift();
  }

  async input(options: vscode.InputBoxOptions): Promise<string | undefined> {
    // A box opened with a value shows what its validateInput says of it at once (`shown`).
    const shown = options.value !== undefined ? await options.validateInput?.(options.value) : undefined;
    this.asked.push({ kind: 'input', title: options.title, password: options.password, value: options.value, ...(shown ? { shown: typeof shown === 'string' ? shown : shown.message } : {}) });
    const answer = this.next('input box');
    if (answer === undefined) return undefined;
    const text = String(answer);
    // A string or an Error message refuses the answer; a warning or an info does not.
    const problem = await options.validateInput?.(text);
    if (problem && (typeof problem === 'string' || problem.severity === vscode.InputBoxValidationSeverity.Error)) {
      throw new Error(`input "${options.title}" rejected the answer: ${typeof problem === 'string' ? problem : problem.message}`);
    }
    return text;
  }

  async pick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions): Promise<T | undefined> {
    this.asked.push({ kind: 'pick', title: options.title });
    const answer = this.next('quick pick');
    if (answer === undefined) return undefined;
    const item = items.find((i) => i.label === answer);
    if (!item) throw new Error(`quick pick "${options.title}" has no item "${answer}": ${items.map((i) => i.label).join(', ')}`);
    return item;
  }

  async confirm(): Promise<boolean> {
    this.asked.push({ kind: 'confirm' });
    return this.next('confirmation') === true;
  }

  async notify(severity: string, message: string, ...actions: string[]): Promise<string | undefined> {
    this.asked.push({ kind: `notify:${severity}`, title: message, actions });
    const answer = this.next('notification');
    if (answer === undefined) return undefined;
    if (!actions.includes(String(answer))) throw new Error(`notification "${message}" has no action "${answer}": ${actions.join(', ')}`);
    return String(answer);
  }

  status(message: string): void {
    this.asked.push({ kind: 'status', title: message });
  }

  /** An open dialog's answer is a path, or several joined by "\n" (undefined: cancelled). */
  async openDialog(options: vscode.OpenDialogOptions): Promise<vscode.Uri[] | undefined> {
    this.asked.push({ kind: 'openDialog', title: options.title });
    const answer = this.next('open dialog');
    if (answer === undefined) return undefined;
    return String(answer).split('\n').map((p) => vscode.Uri.file(p));
  }

  get remaining(): number {
    return this.answers.length;
  }
}

/** Runs a command with scripted answers and checks that every answer was used. */
export async function runScripted(api: DmarcExplorerApi, command: string, answers: (string | boolean | undefined)[], ...args: unknown[]): Promise<ScriptedPrompter> {
  const prompter = new ScriptedPrompter(answers);
  const restore = api.usePrompter(prompter);
  try {
    await vscode.commands.executeCommand(command, ...args);
  } finally {
    restore();
  }
  if (prompter.remaining) throw new Error(`${command} left ${prompter.remaining} answer(s) unused`);
  return prompter;
}

export async function removeAllAccounts(api: DmarcExplorerApi): Promise<void> {
  for (const a of api.accounts.list()) await api.accounts.remove(a.id);
}

/** "1 report", "6 reports": a count as the extension words it in English (never "report(s)"). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Waits until `f` gives something truthy (polling every 50 ms), and gives it; fails after `ms`. */
export async function until<T>(f: () => T | undefined | Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Closes an untitled export without saving, and waits until the extension host has let go of it. */
export async function closeUntitled(doc: vscode.TextDocument): Promise<void> {
  await vscode.window.showTextDocument(doc);
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  await until(() => doc.isClosed || undefined, 'the export tab to close');
}

/**
 * For a suite of big loads: a local API server with `rowsPerDay` rows a day for one organization,
 * and an account for it (mocha hooks around the suite; the fields are set once `before` ran).
 */
export function bigLoadAccount(name: string, key: string, org: { id: string; name: string }, rowsPerDay: number): { api: DmarcExplorerApi; server: ApiServer; accountId: string } {
  const ctx = {} as { api: DmarcExplorerApi; server: ApiServer; accountId: string };
  before(async () => {
    ctx.server = await startApiServer({ keys: { [key]: [org.id] }, rowsPerDay });
    ctx.api = await extensionApi();
    const account = await ctx.api.accounts.add(name, ctx.server.url, key);
    ctx.accountId = account.id;
    await ctx.api.accounts.addOrganization(account.id, org);
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await ctx.api.accounts.remove(ctx.accountId);
    await ctx.server.close();
  });
  return ctx;
}

/** The row counts a panel's webview says it selected (selectionChanged), as they come. */
export function selectedCounts(opened: RecordsPanel): number[] {
  const counts: number[] = [];
  const handle = opened.handleMessage.bind(opened);
  opened.handleMessage = (m: unknown) => {
    const msg = m as { type?: unknown; count?: unknown };
    if (msg?.type === 'selectionChanged' && typeof msg.count === 'number') counts.push(msg.count);
    return handle(m);
  };
  return counts;
}

/** Until the panel's webview has all `rows` rows: Select All in it selects that many (`counts`: selectedCounts). */
export async function untilWebviewHas(opened: RecordsPanel, counts: number[], rows: number, ms = 60_000): Promise<void> {
  await until(async () => {
    opened.command('selectAll');
    await new Promise((r) => setTimeout(r, 300));
    return counts.includes(rows) || undefined;
  }, `the webview to select all ${rows} rows`, ms);
}
