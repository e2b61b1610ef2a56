import * as vscode from 'vscode';
import { ApiError, checkBaseUrl, describeApiError, fetchDmarcRecords, requestLine, toApiError, utcDayRange } from '../api';
import type { Account, AccountStore, Organization } from './accountStore';
import { organizationLabel } from './accountStore';
import type { Prompter } from '../ui/prompter';
import { Commands } from '../commands';
import type { Node, NodeOf } from '../tree/nodes';

export const PUBLIC_BASE_URL = 'https://www.suped.com';

export interface AccountCommandDeps {
  accounts: AccountStore;
  prompter: () => Prompter;
  log: vscode.LogOutputChannel;
  /** Called when a key or organization changes, so cached data of that account is dropped. */
  invalidate: (accountId: string, organizationId?: string) => void;
  /** Called after an account's key was replaced: open panels of it fetch again with the new key. */
  keyChanged?: (accountId: string) => void;
  timeoutMs: () => number;
  /** Pre-filled base URL (the demo sets it to the local server). */
  defaultBaseUrl: () => string;
}


export function validateLabel(value: string): string | undefined {
  if (!value.trim()) return vscode.l10n.t('Enter a name, for example your company or the client this key belongs to.');
  if (value.length > 100) return vscode.l10n.t('Keep the name under 100 characters.');
  return undefined;
}

export function validateApiKey(value: string): string | undefined {
  if (!value) return vscode.l10n.t('Paste the API key your DMARC provider issued.');
  if (/\s/.test(value)) return vscode.l10n.t('An API key has no spaces or line breaks: check what was pasted.');
  return undefined;
}

export function validateOrganizationId(value: string): string | undefined {
  if (!value.trim()) return vscode.l10n.t('Enter the organization ID: it is in the organization\u2019s settings, under General.');
  if (/\s/.test(value.trim())) return vscode.l10n.t('An organization ID has no spaces.');
  return undefined;
}

/** Registers the account and organization commands. */
export function registerAccountCommands(deps: AccountCommandDeps): vscode.Disposable[] {
  const { accounts, log } = deps;

  async function pickAccount(node: unknown, purpose: string): Promise<Account | undefined> {
    const fromNode = accountOf(node);
    if (fromNode) return accounts.get(fromNode.id);
    const all = accounts.list();
    if (all.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Add an account first.'));
      return undefined;
    }
    if (all.length === 1) return all[0];
    const item = await deps.prompter().pick(
      all.map((a) => ({ label: a.label, description: a.baseUrl, account: a })),
      { title: purpose, placeHolder: vscode.l10n.t('Choose an account') },
    );
    return item?.account;
  }

  async function pickOrganization(node: unknown, purpose: string): Promise<{ account: Account; org: Organization } | undefined> {
    if (isNode(node, 'org')) {
      const account = accounts.get(node.account.id);
      const org = account?.organizations.find((o) => o.id === node.org.id);
      return account && org ? { account, org } : undefined;
    }
    const items = accounts.list().flatMap((account) =>
      account.organizations.map((org) => ({ label: organizationLabel(org), description: `${org.id} · ${account.label}`, account, org })),
    );
    if (items.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Add an organization first.'));
      return undefined;
    }
    if (items.length === 1) return items[0];
    const item = await deps.prompter().pick(items, { title: purpose, placeHolder: vscode.l10n.t('Choose an organization'), matchOnDescription: true });
    return item && { account: item.account, org: item.org };
  }

  /**
   * One day of records (yesterday, UTC) per organization, as a cheap check that the key may read
   * it; in one cancellable progress notification. Undefined when the user cancelled.
   */
  async function checkAccess(account: Account, apiKey: string, organizationIds: readonly string[], title: string): Promise<(ApiError | undefined)[] | undefined> {
    const { startDate, endDate } = utcDayRange(new Date(Date.now() - 86_400_000));
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        const out: (ApiError | undefined)[] = [];
        for (const organizationId of organizationIds) {
          if (organizationIds.length > 1) progress.report({ message: organizationId, increment: 100 / organizationIds.length });
          try {
            await fetchDmarcRecords(
              { baseUrl: account.baseUrl, apiKey, organizationId, startDate, endDate },
              { signal: abort.signal, timeoutMs: deps.timeoutMs(), retries: 1, log: (l) => log.debug(l), onDone: (s) => log.info(`access check: ${requestLine(s)}`) },
            );
            out.push(undefined);
          } catch (err) {
            const e = toApiError(err);
            if (e.kind === 'cancelled' || token.isCancellationRequested) return undefined;
            log.warn(`access check for organization ${organizationId} on account "${account.label}": ${e.kind}: ${describeApiError(e)}`);
            out.push(e);
          }
        }
        return out;
      } finally {
        sub.dispose();
      }
    });
  }

  /**
   * Asks for the organization ID and checks it at once, before the display name: a typo is said
   * at the ID step, not after a name was typed for it. Edit Organization ID asks again with the
   * ID as typed, the box saying why it was refused (a warning: the same ID may be checked again,
   * after the key was fixed).
   */
  async function addOrganization(node?: unknown, refused?: { id: string; why: string }): Promise<void> {
    const account = await pickAccount(node, vscode.l10n.t('Add Organization'));
    if (!account) return;
    const id = await deps.prompter().input({
      title: vscode.l10n.t('Add Organization to {0} (1/2)', account.label),
      prompt: vscode.l10n.t('Organization ID. Find it in your DMARC provider\u2019s organization settings, under General.'),
      placeHolder: vscode.l10n.t('organization ID'),
      value: refused?.id,
      validateInput: (v) => validateOrganizationId(v) ?? (refused && v.trim() === refused.id ? { message: refused.why, severity: vscode.InputBoxValidationSeverity.Warning } : undefined),
    });
    if (id === undefined) return;
    const organizationId = id.trim();
    const apiKey = await accounts.getKey(account.id);
    if (!apiKey) {
      void vscode.window.showErrorMessage(vscode.l10n.t('The API key of {0} is missing. Run "Update API Key".', account.label));
      return;
    }
    const checked = await checkAccess(account, apiKey, [organizationId], vscode.l10n.t('Checking access to {0}…', organizationId));
    if (!checked) return;
    const problem = checked[0];
    if (problem?.kind === 'forbidden') {
      // A 403 is a wrong key or an organization this key cannot read: offer to fix either.
      const edit = vscode.l10n.t('Edit Organization ID');
      const update = vscode.l10n.t('Update API Key');
      const choice = await deps.prompter().notify(
        'error',
        vscode.l10n.t('{0}: {1} A 403 means a wrong API key, or an organization ID this key cannot read (a typo, or another owner\u2019s).', account.label, describeApiError(problem)),
        edit,
        update,
      );
      if (choice === edit) await addOrganization({ kind: 'account', account }, { id: organizationId, why: describeApiError(problem) });
      else if (choice === update) await vscode.commands.executeCommand(Commands.updateApiKey, { kind: 'account', account });
      return;
    }
    if (problem) {
      const add = vscode.l10n.t('Add Anyway');
      const choice = await deps.prompter().notify('warning', vscode.l10n.t('Could not check access to {0}: {1}', organizationId, describeApiError(problem)), add);
      if (choice !== add) return;
    }
    const name = await deps.prompter().input({
      title: vscode.l10n.t('Add Organization to {0} (2/2)', account.label),
      prompt: vscode.l10n.t('A display name for the tree (optional: leave empty to show the ID).'),
      placeHolder: organizationId,
    });
    if (name === undefined) return;
    await accounts.addOrganization(account.id, { id: organizationId, name: name.trim() || undefined });
    log.info(`organization ${organizationId} added to account "${account.label}"`);
  }

  /** Asks for a new key and checks it before saving; true when a key was saved. */
  async function updateApiKey(account: Account, typed?: string): Promise<boolean> {
    const apiKey = await deps.prompter().input({
      title: vscode.l10n.t('Update API Key of {0}', account.label),
      prompt: vscode.l10n.t('The new API key. It replaces the stored one.'),
      password: true,
      value: typed,
      validateInput: validateApiKey,
    });
    if (apiKey === undefined) return false;
    if (account.organizations.length > 0) {
      const checked = await checkAccess(account, apiKey, account.organizations.map((o) => o.id), vscode.l10n.t('Checking the new API key of {0}…', account.label));
      if (!checked) return false;
      const failed = checked.filter((e): e is ApiError => e !== undefined);
      if (failed.length === checked.length) {
        // Nothing read with the new key: say so before replacing a key that may be the right one.
        // The safe action comes first: VS Code draws a notification's first action as its primary button.
        const refused = failed.every((e) => e.kind === 'forbidden');
        const save = vscode.l10n.t('Save Anyway');
        const edit = vscode.l10n.t('Edit Key');
        const choice = await deps.prompter().notify(
          refused ? 'error' : 'warning',
          refused
            ? vscode.l10n.t('The new key was refused for every organization of {0}: {1}', account.label, describeApiError(failed[0]))
            : vscode.l10n.t('The new key of {0} could not be checked: {1}', account.label, describeApiError(failed[0])),
          edit,
          save,
        );
        if (choice === edit) return updateApiKey(account, apiKey);
        if (choice !== save) return false;
      }
    }
    await accounts.setKey(account.id, apiKey);
    deps.invalidate(account.id);
    deps.keyChanged?.(account.id);
    log.info(`API key of account "${account.label}" updated`);
    void vscode.window.setStatusBarMessage(vscode.l10n.t('API key of {0} updated.', account.label), 5000);
    return true;
  }

  return [
    vscode.commands.registerCommand(Commands.addAccount, async () => {
      const p = deps.prompter();
      const label = await p.input({ title: vscode.l10n.t('Add Account (1/3)'), prompt: vscode.l10n.t('A name for this account, such as your company or a client.'), placeHolder: vscode.l10n.t('e.g. Acme Corp'), validateInput: validateLabel });
      if (label === undefined) return;
      const baseUrl = await p.input({
        title: vscode.l10n.t('Add Account (2/3)'),
        prompt: vscode.l10n.t('Base URL of the DMARC Records API. HTTPS, or plain HTTP to this machine only.'),
        placeHolder: 'https://www.example.com',
        value: deps.defaultBaseUrl(),
        validateInput: (v) => checkBaseUrl(v.trim()),
      });
      if (baseUrl === undefined) return;
      const apiKey = await p.input({
        title: vscode.l10n.t('Add Account (3/3)'),
        prompt: vscode.l10n.t('API key. It is stored in VS Code\u2019s secret storage, never in settings.'),
        placeHolder: vscode.l10n.t('the API key your DMARC provider issued'),
        password: true,
        validateInput: validateApiKey,
      });
      if (apiKey === undefined) return;
      const account = await accounts.add(label.trim(), baseUrl.trim().replace(/\/+$/, ''), apiKey);
      log.info(`account "${account.label}" added (${account.baseUrl})`);
      await addOrganization({ kind: 'account', account });
    }),

    vscode.commands.registerCommand(Commands.updateApiKey, async (node?: unknown) => {
      const account = await pickAccount(node, vscode.l10n.t('Update API Key'));
      if (account) await updateApiKey(account);
    }),

    vscode.commands.registerCommand(Commands.renameAccount, async (node?: unknown) => {
      const account = await pickAccount(node, vscode.l10n.t('Rename Account'));
      if (!account) return;
      const label = await deps.prompter().input({ title: vscode.l10n.t('Rename Account'), value: account.label, validateInput: validateLabel });
      if (label === undefined) return;
      await accounts.rename(account.id, label.trim());
    }),

    vscode.commands.registerCommand(Commands.removeAccount, async (node?: unknown) => {
      const account = await pickAccount(node, vscode.l10n.t('Remove Account'));
      if (!account) return;
      const ok = await deps.prompter().confirm(
        vscode.l10n.t('Remove the account "{0}"?', account.label),
        account.organizations.length === 1
          ? vscode.l10n.t('Its API key is deleted from secret storage and its organization leaves the tree. Report data stays with the provider.')
          : vscode.l10n.t('Its API key is deleted from secret storage and its {0} organizations leave the tree. Report data stays with the provider.', account.organizations.length),
        vscode.l10n.t('Remove'),
      );
      if (!ok) return;
      await accounts.remove(account.id);
      deps.invalidate(account.id);
      log.info(`account "${account.label}" removed`);
    }),

    vscode.commands.registerCommand(Commands.addOrganization, addOrganization),

    vscode.commands.registerCommand(Commands.renameOrganization, async (node?: unknown) => {
      const picked = await pickOrganization(node, vscode.l10n.t('Rename Organization'));
      if (!picked) return;
      const name = await deps.prompter().input({
        title: vscode.l10n.t('Rename Organization {0}', picked.org.id),
        prompt: vscode.l10n.t('Display name (leave empty to show the ID).'),
        value: picked.org.name ?? '',
      });
      if (name === undefined) return;
      await accounts.renameOrganization(picked.account.id, picked.org.id, name.trim());
    }),

    vscode.commands.registerCommand(Commands.removeOrganization, async (node?: unknown) => {
      const picked = await pickOrganization(node, vscode.l10n.t('Remove Organization'));
      if (!picked) return;
      const ok = await deps.prompter().confirm(
        vscode.l10n.t('Remove the organization "{0}" from {1}?', organizationLabel(picked.org), picked.account.label),
        vscode.l10n.t('It leaves the tree and its cached records are dropped. You can add it again later.'),
        vscode.l10n.t('Remove'),
      );
      if (!ok) return;
      await accounts.removeOrganization(picked.account.id, picked.org.id);
      deps.invalidate(picked.account.id, picked.org.id);
    }),

    vscode.commands.registerCommand(Commands.copyOrganizationId, async (node?: unknown) => {
      const picked = await pickOrganization(node, vscode.l10n.t('Copy Organization ID'));
      if (!picked) return;
      await vscode.env.clipboard.writeText(picked.org.id);
      void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied organization ID {0}', picked.org.id), 3000);
    }),

    vscode.commands.registerCommand(Commands.testConnection, async (node?: unknown) => {
      const account = await pickAccount(node, vscode.l10n.t('Test Connection'));
      if (!account) return;
      const apiKey = await accounts.getKey(account.id);
      if (!apiKey) {
        void vscode.window.showErrorMessage(vscode.l10n.t('The API key of {0} is missing. Run "Update API Key".', account.label));
        return;
      }
      if (account.organizations.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Add an organization to {0} first: the API can only be checked against one.', account.label));
        return;
      }
      const checked = await checkAccess(account, apiKey, account.organizations.map((o) => o.id), vscode.l10n.t('Testing the connection of {0}…', account.label));
      if (!checked) return;
      const failed = account.organizations.map((org, i) => ({ org, problem: checked[i] })).filter((r) => r.problem);
      // Success needs no pop-up: the progress notification just closed and the tree is unchanged.
      if (failed.length === 0) {
        deps.prompter().status(checked.length === 1
          ? vscode.l10n.t('{0}: connected, the key reads its organization.', account.label)
          : vscode.l10n.t('{0}: connected, the key reads all {1} organizations.', account.label, checked.length));
      } else {
        const details = failed.map((f) => `${organizationLabel(f.org)}: ${describeApiError(f.problem)}`).join(' · ');
        void deps.prompter().notify(
          'error',
          checked.length === 1
            ? vscode.l10n.t('{0}: the organization failed. {1}', account.label, details)
            : vscode.l10n.t('{0}: {1} of {2} organizations failed. {3}', account.label, failed.length, checked.length, details),
        );
      }
    }),
  ];
}

function isNode<K extends Node['kind']>(v: unknown, kind: K): v is NodeOf<K> {
  return !!v && typeof v === 'object' && (v as { kind?: unknown }).kind === kind;
}

function accountOf(node: unknown): Account | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const account = (node as { account?: Account }).account;
  return account && typeof account.id === 'string' ? account : undefined;
}
