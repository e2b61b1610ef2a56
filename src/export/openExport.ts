import * as vscode from 'vscode';
import { open, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { DmarcRecord } from '../api/types';
import { adviceToCsv, adviceToJson, csvChunks, groupsToCsv, groupsToJson, jsonChunks, linePieces, type AdviceRow, type ChunkOptions, type GroupRow } from './format';
import { perfMark } from '../perf';
import type { OverviewRow } from '../shared/overviewProtocol';
import { overviewToCsv, overviewToJson } from './overviewFormat';

let exportCount = 0;

/**
 * Above this size an export is offered as a file instead of an editor tab (UTF-16 code units,
 * about bytes). VS Code does not synchronise documents above 50 MiB with extensions (opening one
 * fails: "Files above 50MB cannot be synchronized with extensions"), and a tab's cost grows with
 * its text: measured in the test host (VS Code Server 1.100.3 in Chromium, 2 cores), an untitled
 * tab filled with 6 / 12 / 24 M characters took 1.4 / 2.2 / 4.0 s, and 100k typical rows (45 M
 * characters, one record per line) about 8–11 s. Below the limit the tab is still what most users
 * want; above it a file is written at disk speed and opens in whatever tool the user prefers.
 */
export const TAB_MAX_CHARS = 48 * 1024 * 1024;
/**
 * A cheap look-ahead by rows: even short rows (~250 characters) make 200k rows more than
 * `TAB_MAX_CHARS`, so such an export goes straight to a file without first building its text.
 */
export const TAB_MAX_ROWS = 200_000;

/**
 * The narrowest page (the panel's webview, CSS pixels) that an export opens beside: VS Code splits
 * the panel's editor group in two, and the panel keeps about half. From 1,440 px that half is
 * still 720 px or more, where a panel is not small (media/webview/viewState.ts SMALL_PANEL); at
 * 1,100 px (a 1440 x 900 window with the sidebar open) the half was the ~520 px of issue 43.
 */
export const EXPORT_BESIDE_MIN_WIDTH = 1440;

/**
 * Where an export's tab opens: beside the panel, or as a tab of the panel's own group left in the
 * background (see exportPlace).
 */
export type ExportPlace = { beside: true } | { beside: false; column: vscode.ViewColumn };

/**
 * Beside a wide panel; else a tab of the panel's own group, opened behind the panel. Not in front
 * of it: the panel keeps no page while hidden (no retainContextWhenHidden: a hidden panel's rows
 * and analysis would stay in memory, at a million rows hundreds of MB per panel), so VS Code
 * would drop its page and build it again when it comes back (every row sent again, the selection
 * gone). The page says where the tab is (its status line). Without a width (an older page): a tab.
 */
export function exportPlace(pageWidth: number | undefined, panelColumn: vscode.ViewColumn | undefined): ExportPlace {
  if (pageWidth !== undefined && pageWidth >= EXPORT_BESIDE_MIN_WIDTH) return { beside: true };
  return { beside: false, column: panelColumn ?? vscode.ViewColumn.Active };
}

/** A tab: its document; the editor when it shows (beside), none while it waits behind the panel. */
export type ExportOutcome = { kind: 'tab'; document: vscode.TextDocument; editor: vscode.TextEditor | undefined } | { kind: 'file'; uri: vscode.Uri } | { kind: 'cancelled' };

export interface ExportOptions {
  /** Override the limits above (tests). */
  maxTabRows?: number;
  maxTabChars?: number;
  /** Override `TAB_EDIT_CHARS` (tests). */
  editChars?: number;
  /** Where to save a large export (default: VS Code's save dialog). */
  saveDialog?: (options: vscode.SaveDialogOptions) => Thenable<vscode.Uri | undefined>;
  /** Aborts the export (tests; the user cancels through the progress notification). */
  signal?: AbortSignal;
  /** When the tab shows, before the rest of the text is appended (tests). */
  onShown?: (doc: vscode.TextDocument) => unknown;
  /** After each slice written to a file: rows done of total (tests). */
  onProgress?: (done: number, total: number) => void;
  /** Where the tab opens (default: beside). */
  place?: ExportPlace;
}

/**
 * Exports the records as JSON (as received, one record per line) or CSV: in a new untitled editor
 * tab, or, above `TAB_MAX_ROWS` / `TAB_MAX_CHARS`, to a file the user picks, written in slices
 * with a cancellable progress notification (cancel deletes the partial file). The text is built
 * in slices that yield the event loop, so the extension host stays responsive meanwhile.
 */
export async function openExport(records: readonly DmarcRecord[], format: 'json' | 'csv', baseName = 'dmarc-records', opts: ExportOptions = {}): Promise<ExportOutcome> {
  perfMark('exportStart', { rows: records.length, format });
  const chunks = (o: ChunkOptions) => (format === 'json' ? jsonChunks(records, o) : csvChunks(records, o));
  const name = safeName(baseName);
  if (records.length > (opts.maxTabRows ?? TAB_MAX_ROWS)) return saveToFile(chunks, records.length, format, name, opts);
  const parts: string[] = [];
  let chars = 0;
  for await (const c of chunks({ signal: opts.signal })) {
    parts.push(c);
    chars += c.length;
  }
  if (chars > (opts.maxTabChars ?? TAB_MAX_CHARS)) {
    // Already built: write the pieces as they are.
    return saveToFile(() => fromArray(parts, opts.signal), records.length, format, name, opts);
  }
  perfMark('exportBuilt', { chars });
  let shown: Shown;
  try {
    shown = await openText(parts.join(''), format, name, opts);
  } catch (err) {
    if (err instanceof ExportClosed) return { kind: 'cancelled' };
    throw err;
  }
  perfMark('exportShown', { rows: records.length, format, lines: shown.document.lineCount });
  return { kind: 'tab', ...shown };
}

/** A grouped table (the panel's Groups) in a new untitled tab. */
export async function openGroupsExport(title: string, rows: readonly GroupRow[], format: 'json' | 'csv', baseName: string, place?: ExportPlace): Promise<Shown> {
  return openText(format === 'json' ? groupsToJson(title, rows) : groupsToCsv(rows), format, safeName(baseName), { place });
}

/** The panel's Advice list in a new untitled tab. */
export async function openAdviceExport(title: string, rows: readonly AdviceRow[], format: 'json' | 'csv', baseName: string, place?: ExportPlace): Promise<Shown> {
  return openText(format === 'json' ? adviceToJson(title, rows) : adviceToCsv(rows), format, safeName(baseName), { place });
}

/** An export's tab: its document, and its editor when it shows. */
export interface Shown {
  document: vscode.TextDocument;
  editor: vscode.TextEditor | undefined;
}

/** The name of an export's tab, as its tab shows it (`dmarc-acme-1.json`). */
export function tabName(doc: vscode.TextDocument): string {
  return doc.uri.path.split('/').pop() ?? doc.uri.path;
}

/** An export's tab that waits behind the panel: its name, for the page to say where it is. */
export function behind(shown: Shown | undefined): { tab?: string } {
  return shown && !shown.editor ? { tab: tabName(shown.document) } : {};
}

/** The Overview's rows, in the order shown, in a new untitled tab. */
export async function openOverviewExport(
  title: string, period: Parameters<typeof overviewToJson>[1], rows: readonly OverviewRow[], format: 'json' | 'csv', baseName: string, place?: ExportPlace,
): Promise<Shown> {
  return openText(format === 'json' ? overviewToJson(title, period, rows) : overviewToCsv(rows), format, safeName(baseName), { place });
}

function safeName(baseName: string): string {
  return baseName.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'dmarc-records';
}

async function* fromArray(parts: readonly string[], signal: AbortSignal | undefined): AsyncGenerator<string> {
  for (const p of parts) {
    signal?.throwIfAborted();
    yield p;
  }
}

function defaultSaveUri(name: string, format: 'json' | 'csv'): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri ?? vscode.Uri.file(homedir());
  return vscode.Uri.joinPath(folder, `${name}.${format}`);
}

/** Asks where to save, then writes the pieces there as they are built, with progress and cancel. */
async function saveToFile(
  chunks: (o: ChunkOptions) => AsyncIterable<string>, rows: number, format: 'json' | 'csv', name: string, opts: ExportOptions,
): Promise<ExportOutcome> {
  const dialog = opts.saveDialog ?? ((o) => vscode.window.showSaveDialog(o));
  const uri = await dialog({
    title: vscode.l10n.t('{0} rows are too many for an editor tab: save the export to a file', rows.toLocaleString()),
    saveLabel: vscode.l10n.t('Save Export'),
    defaultUri: defaultSaveUri(name, format),
    filters: format === 'json' ? { JSON: ['json'] } : { CSV: ['csv'] },
  });
  if (!uri) return { kind: 'cancelled' };
  if (uri.scheme !== 'file') {
    throw new Error(vscode.l10n.t('Exports can only be saved to a local file; {0} is not one.', uri.toString()));
  }
  const done = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Saving {0} rows to {1}', rows.toLocaleString(), uri.fsPath), cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const onCancel = token.onCancellationRequested(() => abort.abort());
      const onAbort = () => abort.abort();
      opts.signal?.addEventListener('abort', onAbort);
      if (opts.signal?.aborted) abort.abort();
      let reported = 0;
      // Written beside the target and renamed into place when complete: a cancelled or failed
      // export leaves neither a partial file nor a truncated earlier one.
      const partial = `${uri.fsPath}.partial`;
      const file = await open(partial, 'w');
      try {
        for await (const piece of chunks({
          signal: abort.signal,
          onProgress: (n, total) => {
            const pct = (n / total) * 100;
            progress.report({ increment: pct - reported });
            reported = pct;
            opts.onProgress?.(n, total);
          },
        })) {
          abort.signal.throwIfAborted();
          await file.write(piece);
        }
        abort.signal.throwIfAborted();
        await file.close();
        await rename(partial, uri.fsPath);
        return true;
      } catch (err) {
        // Cancelled or failed: the partial file is deleted.
        await file.close().catch(() => undefined);
        await rm(partial, { force: true }).catch(() => undefined);
        if (abort.signal.aborted) return false;
        throw err;
      } finally {
        onCancel.dispose();
        opts.signal?.removeEventListener('abort', onAbort);
      }
    },
  );
  if (!done) return { kind: 'cancelled' };
  perfMark('exportSaved', { rows, format });
  void vscode.window.showInformationMessage(vscode.l10n.t('Saved {0} rows to {1}', rows.toLocaleString(), uri.fsPath));
  return { kind: 'file', uri };
}

/**
 * The text goes into its tab in edits of about this many characters, each ending at a line end.
 * One edit of a whole 100k-row export (45 M characters) blocked the extension host for 1.2–1.7 s
 * while VS Code serialised it; pieces of 4 M characters kept every block under about 110 ms in
 * the panel bench, and filled the tab in 5.7 s where 1 M pieces took 6.2 s (the tab itself is
 * the cost: VS Code sends the text to the window and back; opening the same text as a file on
 * disk took 5.3–7.2 s, see `TAB_MAX_CHARS`; as a read-only virtual document, whole, 7.4–8.9 s,
 * the tab empty until then and the extension host blocked ~0.8 s taking the text back).
 */
export const TAB_EDIT_CHARS = 1 << 22;
/**
 * The first edit is smaller (about a thousand rows), and the tab shows as soon as it is in: the
 * user reads them while the rest is appended. 100k rows: the tab showed 1.2–1.7 s after the
 * command instead of 10.4 s; the whole text took 10–13 s, the window's work (see TAB_EDIT_CHARS).
 */
export const TAB_FIRST_CHARS = 1 << 19;

/**
 * Opens text in a new untitled editor tab. Each export gets its own untitled name
 * (`dmarc-<organization>-<n>.json`): that is what Save As suggests, and a name is never reused,
 * since reopening a just-closed `Untitled-N` could show the extension host the closed document's
 * text. The tab shows after the first piece; the rest is appended at the document's end, with
 * the window's progress indicator, and stops if the user closes the tab meanwhile.
 */
async function openText(text: string, format: 'json' | 'csv', safe: string, opts: Pick<ExportOptions, 'editChars' | 'onShown' | 'place'> = {}): Promise<Shown> {
  const editChars = opts.editChars ?? TAB_EDIT_CHARS;
  const uri = vscode.Uri.from({ scheme: 'untitled', path: `${safe}-${++exportCount}.${format}` });
  let doc = await vscode.workspace.openTextDocument(uri);
  // Plain text while it fills: as JSON, VS Code's JSON language server read the growing document
  // again after each edit (100k rows: 11.8 s to fill the tab, 6.2 s as plain text).
  if (doc.languageId !== 'plaintext') doc = await vscode.languages.setTextDocumentLanguage(doc, 'plaintext');
  perfMark('exportOpened');
  const firstEnd = (linePieces(text, Math.min(editChars, TAB_FIRST_CHARS)).next().value ?? '').length;
  // CSV gets CRLF line ends (RFC 4180) with its first edit, before any line shows.
  await append(doc, text.slice(0, firstEnd), format === 'csv');
  const editor = await show(doc, opts.place ?? { beside: true });
  perfMark('exportFirstShown', { chars: firstEnd });
  await opts.onShown?.(doc);
  if (firstEnd < text.length) {
    const rest = text.slice(firstEnd);
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Filling the export tab') }, async (progress) => {
      let done = firstEnd;
      for (const piece of linePieces(rest, editChars)) {
        // Closed while it filled: stop, rather than open the untitled document again.
        if (doc.isClosed) return;
        await append(doc, piece, false);
        done += piece.length;
        progress.report({ message: `${Math.floor((done / text.length) * 100)}%` });
      }
    });
  }
  perfMark('exportApplied');
  if (doc.isClosed) throw new ExportClosed();
  // JSON; for CSV a CSV language when an installed extension offers one (Rainbow CSV and others), else plain text.
  const language = format === 'json' ? 'json' : (await vscode.languages.getLanguages()).includes('csv') ? 'csv' : 'plaintext';
  if (doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
  perfMark('exportLanguage');
  return { document: doc, editor };
}

/**
 * Shows the export's tab where `place` says, the keyboard left in the panel (the user goes on
 * choosing rows there). Behind the panel through `vscode.open`, whose options take `background`
 * (VS Code's own TextEditorOpenOptions; showTextDocument always brings its editor to the front).
 */
async function show(doc: vscode.TextDocument, place: ExportPlace): Promise<vscode.TextEditor | undefined> {
  if (!place.beside) {
    await vscode.commands.executeCommand('vscode.open', doc.uri, { viewColumn: place.column, preview: false, preserveFocus: true, background: true });
    return undefined;
  }
  const editor = await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
  editor.selection = new vscode.Selection(0, 0, 0, 0);
  return editor;
}

/** The tab was closed before it was filled (a user's choice: nothing to report). */
class ExportClosed extends Error {
  constructor() {
    super('The export tab was closed before it was filled.');
  }
}

/**
 * Appends text at the document's end (after anything the user typed meanwhile). VS Code refuses
 * an edit made against an older version of the document (the user typed while it was on its
 * way): it is made again against the new one, a few times.
 */
async function append(doc: vscode.TextDocument, piece: string, crlf: boolean): Promise<void> {
  for (let attempt = 0; attempt < 5 && !doc.isClosed; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 50));
    const edit = new vscode.WorkspaceEdit();
    edit.set(doc.uri, [
      ...(crlf ? [vscode.TextEdit.setEndOfLine(vscode.EndOfLine.CRLF)] : []),
      vscode.TextEdit.insert(doc.lineAt(doc.lineCount - 1).range.end, piece),
    ]);
    if (await vscode.workspace.applyEdit(edit)) return;
  }
  if (!doc.isClosed) throw new Error(vscode.l10n.t('The export could not be written to its editor tab.'));
}
