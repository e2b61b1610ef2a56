import * as vscode from 'vscode';
import { Commands } from './commands';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('DMARC Explorer', { log: true });
  context.subscriptions.push(log);
  log.info(`DMARC Explorer ${context.extension.packageJSON.version} activated`);
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.addAccount, () => {
      void vscode.window.showInformationMessage(vscode.l10n.t('Adding accounts arrives with the accounts view.'));
    }),
    vscode.commands.registerCommand(Commands.refresh, () => undefined),
    // Empty until accounts exist, which is what makes the workbench show the viewsWelcome text.
    vscode.window.createTreeView('dmarc.explorer', {
      treeDataProvider: { getChildren: () => [], getTreeItem: (e: vscode.TreeItem) => e },
    }),
  );
}

export function deactivate(): void {}
