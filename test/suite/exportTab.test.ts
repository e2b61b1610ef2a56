import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../server/server';
import { fetchDmarcRecords, type DmarcRecord } from '../../src/api';
import { openExport, TAB_FIRST_CHARS } from '../../src/export/openExport';
import { toCsv, toJson } from '../../src/export/format';
import { closeUntitled } from './helpers';
import { rawOf } from '../../src/api/rawRow';

const KEY = 'export-suite-key-5c1d';
const ORG = 'org-export-1';

describe('exports (extension host): editor tabs filled in pieces, large exports to files', () => {
  let server: ApiServer;
  let rows: DmarcRecord[];

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 40 });
    const end = new Date();
    const start = new Date(end.getTime() - 7 * 86_400_000);
    ({ records: rows } = await fetchDmarcRecords({ baseUrl: server.url, apiKey: KEY, organizationId: ORG, startDate: start, endDate: end }));
    assert.ok(rows.length >= 100, `rows from the local server (${rows.length})`);
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  it('the tab shows after its first piece and is filled while it shows; then it is JSON', async () => {
    // About 1.2 MB: more than the first piece, in three more pieces.
    const records = Array.from({ length: Math.ceil((3 * TAB_FIRST_CHARS) / 400) }, (_, i) => rows[i % rows.length]!);
    const expected = toJson(records);
    assert.ok(expected.length > 2 * TAB_FIRST_CHARS, `${expected.length} characters`);
    let atShown: { chars: number; visible: boolean; language: string } | undefined;
    const outcome = await openExport(records, 'json', 'first-piece', {
      onShown: (doc) => {
        atShown = { chars: doc.getText().length, visible: vscode.window.visibleTextEditors.some((e) => e.document === doc), language: doc.languageId };
      },
    });
    assert.equal(outcome.kind, 'tab');
    const doc = (outcome as { document: vscode.TextDocument }).document;
    assert.ok(atShown, 'shown before the fill ended');
    assert.ok(atShown.visible, 'the export is in sight when it shows (beside: the keyboard stays where it was)');
    assert.ok(atShown.chars > 0 && atShown.chars < expected.length / 2, `shown with ${atShown.chars} of ${expected.length} characters`);
    assert.equal(expected.slice(0, atShown.chars).at(-1), '\n', 'the first piece ends at a line end');
    assert.equal(atShown.language, 'plaintext', 'plain text while it fills');
    assert.equal(doc.getText(), expected);
    assert.equal(doc.languageId, 'json');
    await closeUntitled(doc);
  });

  it('closing the tab while it fills stops the export: cancelled, and the document is not opened again', async () => {
    const records = Array.from({ length: Math.ceil((3 * TAB_FIRST_CHARS) / 400) }, (_, i) => rows[i % rows.length]!);
    let name = '';
    const outcome = await openExport(records, 'json', 'closed-early', {
      editChars: 4_000,
      onShown: async (doc) => {
        name = doc.uri.toString();
        await closeUntitled(doc);
      },
    });
    assert.equal(outcome.kind, 'cancelled');
    assert.ok(name);
    // Give a stray edit time to reopen it, were there one.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(vscode.workspace.textDocuments.find((d) => d.uri.toString() === name), undefined, 'not reopened');
  });

  it('what the user types in the tab while it fills stays; the rows are appended after it', async () => {
    const records = Array.from({ length: Math.ceil((3 * TAB_FIRST_CHARS) / 400) }, (_, i) => rows[i % rows.length]!);
    const outcome = await openExport(records, 'json', 'typed-in', {
      editChars: 50_000,
      onShown: async (doc) => {
        const edit = new vscode.WorkspaceEdit();
        edit.insert(doc.uri, new vscode.Position(0, 0), '// typed\n');
        assert.ok(await vscode.workspace.applyEdit(edit));
      },
    });
    assert.equal(outcome.kind, 'tab');
    const doc = (outcome as { document: vscode.TextDocument }).document;
    assert.equal(doc.getText(), `// typed\n${toJson(records)}`);
    await closeUntitled(doc);
  });

  it('an export tab filled in many pieces holds exactly the export (JSON, and CSV with CRLF)', async () => {
    const records = rows.slice(0, 40);
    for (const format of ['json', 'csv'] as const) {
      // Pieces of about 700 characters: several rows each, one CRLF-ended CSV line split nowhere.
      const outcome = await openExport(records, format, 'pieces', { editChars: 700 });
      assert.equal(outcome.kind, 'tab');
      const doc = (outcome as { document: vscode.TextDocument }).document;
      const expected = format === 'json' ? toJson(records) : toCsv(records);
      assert.ok(expected.length > 5 * 700, 'the text spans several pieces');
      assert.equal(doc.getText(), expected);
      assert.equal(doc.eol, format === 'csv' ? vscode.EndOfLine.CRLF : vscode.EndOfLine.LF);
      await closeUntitled(doc);
    }
  });

  it('a large export is saved to a file instead: one record per line, streamed, the same rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmarc-export-'));
    try {
      const target = vscode.Uri.file(join(dir, 'big.json'));
      const asked: vscode.SaveDialogOptions[] = [];
      const records = Array.from({ length: 20_000 }, (_, i) => rows[i % rows.length]!);
      const outcome = await openExport(records, 'json', 'dmarc-Panel-Org', { maxTabRows: 1_000, saveDialog: async (o) => (asked.push(o), target) });
      assert.equal(outcome.kind, 'file');
      assert.match(asked[0]!.title!, /20,000 rows/);
      assert.equal(asked[0]!.defaultUri!.path.split('/').pop(), 'dmarc-Panel-Org.json');
      const text = readFileSync(target.fsPath, 'utf8');
      assert.equal(text.split('\n').length, records.length + 3, '[, one line per record, ], final line break');
      assert.deepEqual(JSON.parse(text), records.map((r) => rawOf(r)));
      assert.deepEqual(readdirSync(dir), ['big.json'], 'no partial file left');
      // Above the size limit (here 1,000 characters) as well, for CSV: the text built for a tab is written instead.
      const csv = vscode.Uri.file(join(dir, 'small.csv'));
      const csvOutcome = await openExport(rows.slice(0, 20), 'csv', 'x', { maxTabChars: 1_000, saveDialog: async () => csv });
      assert.equal(csvOutcome.kind, 'file');
      assert.equal(readFileSync(csv.fsPath, 'utf8').split('\r\n').length, 22);
      // No file chosen: nothing happens.
      assert.equal((await openExport(records, 'json', 'x', { maxTabRows: 1_000, saveDialog: async () => undefined })).kind, 'cancelled');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cancelling a file export part-way deletes the partial file and keeps an existing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmarc-export-'));
    try {
      const target = vscode.Uri.file(join(dir, 'big.json'));
      writeFileSync(target.fsPath, 'earlier');
      const records = Array.from({ length: 100_000 }, (_, i) => rows[i % rows.length]!);
      const abort = new AbortController();
      let progress = 0;
      const outcome = await openExport(records, 'json', 'x', {
        maxTabRows: 1_000, saveDialog: async () => target, signal: abort.signal,
        onProgress: (done, total) => {
          progress = done;
          assert.ok(done < total, 'cancelled before the end');
          if (existsSync(`${target.fsPath}.partial`)) abort.abort();
        },
      });
      assert.equal(outcome.kind, 'cancelled');
      assert.ok(progress > 0 && progress < records.length, `stopped part-way (${progress} rows)`);
      assert.deepEqual(readdirSync(dir), ['big.json'], 'the partial file is deleted');
      assert.equal(readFileSync(target.fsPath, 'utf8'), 'earlier', 'the file chosen is left as it was');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
