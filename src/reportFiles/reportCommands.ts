import * as vscode from 'vscode';
import { Commands } from '../commands';
import type { LoadStats } from '../import/library';
import type { Prompter } from '../ui/prompter';
import type { Node } from '../tree/nodes';
import type { ReportFiles } from './reportFiles';
import { englishCount, filesText, problemsText, reportsText } from '../ui/counted';

const MIME_URI_LIST = 'text/uri-list';

/** Open Report Files… (palette, view title, welcome), Open in DMARC Explorer (Explorer), Remove, Reload. */
export function registerReportCommands(files: ReportFiles, prompter: () => Prompter, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const open = async (paths: string[]): Promise<LoadStats | undefined> => {
    if (!paths.length) return undefined;
    log.info(`report files opened: ${englishCount(paths.length, 'location')}`);
    void vscode.commands.executeCommand(`${'dmarc.explorer'}.focus`);
    const stats = await files.add(paths);
    if (stats) prompter().status(outcome(stats));
    return stats;
  };

  return [
    vscode.commands.registerCommand(Commands.openReportFiles, async () => {
      const p = prompter();
      // Windows' and Linux's dialogs choose files or folders, not both: ask which first.
      const kind = await p.pick(
        [
          { label: vscode.l10n.t('Report Files…'), description: '.xml · .xml.gz · .zip · .eml', folders: false },
          { label: vscode.l10n.t('A Folder of Reports…'), description: vscode.l10n.t('read with its subfolders, and watched for new files'), folders: true },
        ],
        { title: vscode.l10n.t('Open Report Files'), placeHolder: vscode.l10n.t('Open files or a folder of DMARC aggregate reports') },
      );
      if (!kind) return undefined;
      const uris = await p.openDialog({
        canSelectFiles: !kind.folders,
        canSelectFolders: kind.folders,
        canSelectMany: true,
        title: vscode.l10n.t('Open Report Files'),
        openLabel: vscode.l10n.t('Open'),
        ...(kind.folders ? {} : { filters: { [vscode.l10n.t('DMARC aggregate reports')]: ['xml', 'gz', 'zip', 'eml'], [vscode.l10n.t('All files')]: ['*'] } }),
      });
      return open(fileUris(uris ?? []));
    }),
    // From the Explorer's context menu: the clicked file, or every selected one.
    vscode.commands.registerCommand(Commands.openInExplorer, (uri?: vscode.Uri, uris?: vscode.Uri[]) => open(fileUris(uris?.length ? uris : uri ? [uri] : []))),
    vscode.commands.registerCommand(Commands.removeReportLocation, async (node?: Node) => {
      if (node?.kind !== 'location') return;
      await files.remove(node.location.path);
      prompter().status(vscode.l10n.t('Closed {0} (the files were not touched)', node.location.path));
    }),
    vscode.commands.registerCommand(Commands.reloadReportFiles, async () => {
      const stats = await files.reload();
      if (stats) prompter().status(outcome(stats));
    }),
  ];
}

/** Files dropped on the view (from the Explorer or the desktop) are opened like Open Report Files. */
export function reportDropController(files: ReportFiles, prompter: () => Prompter, log: vscode.LogOutputChannel): vscode.TreeDragAndDropController<Node> {
  return {
    dropMimeTypes: [MIME_URI_LIST, 'files'],
    dragMimeTypes: [],
    async handleDrop(_target, data) {
      const text = await data.get(MIME_URI_LIST)?.asString();
      const uris: vscode.Uri[] = [];
      for (const line of (text ?? '').split(/\r?\n/)) {
        const t = line.trim();
        if (!t || t.startsWith('#')) continue;
        try {
          uris.push(vscode.Uri.parse(t, true));
        } catch {
          log.warn('a dropped item was not a URI; ignored');
        }
      }
      const paths = fileUris(uris);
      if (!paths.length) return;
      log.info(`report files dropped: ${paths.length}`);
      const stats = await files.add(paths);
      if (stats) prompter().status(outcome(stats));
    },
  };
}

/** Local paths of `file:` URIs (others cannot be read by the library and are left out). */
function fileUris(uris: readonly vscode.Uri[]): string[] {
  return uris.filter((u) => u.scheme === 'file').map((u) => u.fsPath);
}

function outcome(s: LoadStats): string {
  return s.errors
    ? vscode.l10n.t('$(file) {0} from {1}, {2}: see Report Files', reportsText(s.reports), filesText(s.files), problemsText(s.errors))
    : vscode.l10n.t('$(file) {0} from {1}', reportsText(s.reports), filesText(s.files));
}
