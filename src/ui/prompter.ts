import * as vscode from 'vscode';

/**
 * The extension's questions to the user, behind one seam: the real one uses VS Code's input box,
 * quick pick and modal dialogs; tests running in the extension host replace it to answer
 * programmatically while the commands themselves run unchanged.
 */
export interface Prompter {
  input(options: vscode.InputBoxOptions): Promise<string | undefined>;
  pick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions): Promise<T | undefined>;
  /** A modal confirmation; true when the user chose `action`. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
  /** A notification offering actions; resolves to the chosen one, undefined when dismissed. */
  notify(severity: 'error' | 'warning' | 'info', message: string, ...actions: string[]): Promise<string | undefined>;
  /** A passing word in the status bar, for an outcome that needs no answer and no pop-up. */
  status(message: string): void;
  /** The system's (or VS Code's simple) file dialog; undefined when cancelled. */
  openDialog(options: vscode.OpenDialogOptions): Promise<vscode.Uri[] | undefined>;
}

export const windowPrompter: Prompter = {
  input: (options) => Promise.resolve(vscode.window.showInputBox({ ignoreFocusOut: true, ...options })),
  pick: (items, options) => Promise.resolve(vscode.window.showQuickPick(items, { ignoreFocusOut: true, ...options })),
  confirm: async (message, detail, action) =>
    (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action,
  notify: async (severity, message, ...actions) => {
    const show = severity === 'error' ? vscode.window.showErrorMessage : severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    return show(message, ...actions);
  },
  status: (message) => {
    vscode.window.setStatusBarMessage(message, 5000);
  },
  openDialog: (options) => Promise.resolve(vscode.window.showOpenDialog(options)),
};
