import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import manifest from '../../package.json';

const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`;

describe('extension', () => {
  it(`runs in a real VS Code (${'1.100'}.x) extension host`, () => {
    assert.match(vscode.version, /^1\.100\./);
    assert.equal(typeof vscode.window.createTreeView, 'function');
  });

  it('activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is loaded`);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers every command listed in package.json', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const declared = manifest.contributes.commands.map((c) => c.command);
    assert.ok(declared.length > 0);
    const missing = declared.filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
  });

  it('contributes every declared view, and they can be shown', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const views = Object.values(ext.packageJSON.contributes.views as Record<string, { id: string }[]>).flat();
    assert.ok(views.length > 0);
    for (const view of views) {
      // `<view>.focus` exists only for a view the workbench knows; running it opens the view.
      await vscode.commands.executeCommand(`${view.id}.focus`);
    }
  });

  it('activates only on its own views and commands', () => {
    const events: string[] = (manifest as { activationEvents?: string[] }).activationEvents ?? [];
    assert.ok(!events.includes('*') && !events.includes('onStartupFinished'));
  });
});
