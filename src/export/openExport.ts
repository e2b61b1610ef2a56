import * as vscode from 'vscode';
import type { DmarcRecord } from '../api/types';
import { groupsToCsv, groupsToJson, toCsv, toJson, type GroupRow } from './format';
import { perfMark } from '../perf';

let exportCount = 0;

/**
 * Opens the records in a new untitled editor tab: JSON (as received) or CSV. Each export gets its
 * own untitled name (`dmarc-<organization>-<n>.json`): that is what Save As suggests, and a
 * name is never reused, since reopening a just-closed `Untitled-N` could show the extension host
 * the closed document's text.
 */
export async function openExport(records: readonly DmarcRecord[], format: 'json' | 'csv', baseName = 'dmarc-records'): Promise<vscode.TextEditor> {
  perfMark('exportStart', { rows: records.length, format });
  const editor = await openText(format === 'json' ? toJson(records) : toCsv(records), format, baseName);
  perfMark('exportShown', { rows: records.length, format, lines: editor.document.lineCount });
  return editor;
}

/** A grouped table (the panel's Groups) in a new untitled tab. */
export async function openGroupsExport(title: string, rows: readonly GroupRow[], format: 'json' | 'csv', baseName: string): Promise<vscode.TextEditor> {
  return openText(format === 'json' ? groupsToJson(title, rows) : groupsToCsv(rows), format, baseName);
}

async function openText(text: string, format: 'json' | 'csv', baseName: string): Promise<vscode.TextEditor> {
  const safe = baseName.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'dmarc-records';
  const uri = vscode.Uri.from({ scheme: 'untitled', path: `${safe}-${++exportCount}.${format}` });
  let doc = await vscode.workspace.openTextDocument(uri);
  // The document holds its text (CSV with CRLF line ends, RFC 4180) before its tab shows.
  const edit = new vscode.WorkspaceEdit();
  edit.set(uri, [
    ...(format === 'csv' ? [vscode.TextEdit.setEndOfLine(vscode.EndOfLine.CRLF)] : []),
    vscode.TextEdit.insert(new vscode.Position(0, 0), text),
  ]);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('The export could not be written to its editor tab.');
  // JSON; for CSV a CSV language when an installed extension offers one (Rainbow CSV and others), else plain text.
  const language = format === 'json' ? 'json' : (await vscode.languages.getLanguages()).includes('csv') ? 'csv' : 'plaintext';
  if (doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
  const editor = await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
  editor.selection = new vscode.Selection(0, 0, 0, 0);
  return editor;
}
