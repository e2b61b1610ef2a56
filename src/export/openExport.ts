import * as vscode from 'vscode';
import type { DmarcRecord } from '../api/types';
import { toCsv, toJson } from './format';

/** Opens the records in a new untitled editor tab: JSON (as received) or CSV. */
export async function openExport(records: readonly DmarcRecord[], format: 'json' | 'csv'): Promise<vscode.TextEditor> {
  const language = format === 'json' ? 'json' : (await vscode.languages.getLanguages()).includes('csv') ? 'csv' : 'plaintext';
  const doc = await vscode.workspace.openTextDocument({ language, content: format === 'json' ? toJson(records) : toCsv(records) });
  return vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
}
