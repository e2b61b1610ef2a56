import { classesCountedAs } from '../advice/marks';
import * as vscode from 'vscode';
import { ApiError } from '../api';
import type { AccountStore } from '../accounts/accountStore';
import { organizationLabel } from '../accounts/accountStore';
import type { RecordStore } from '../records/recordStore';
import { endProblem, parseBound, presetRange, startProblem, type DateRange, type PresetId } from '../records/dateInput';
import type { Prompter } from '../ui/prompter';
import type { Node } from '../tree/nodes';
import { Commands } from '../commands';
import type { RecordsPanels } from './recordsPanels';
import type { AccountLookup } from '../reportFiles/reportFiles';


export interface PanelCommandDeps {
  accounts: AccountStore;
  /** Accounts with the report files among them (Open Records on a report domain's items). */
  lookup: AccountLookup;
  store: RecordStore;
  panels: RecordsPanels;
  prompter: () => Prompter;
  log: vscode.LogOutputChannel;
  now?: () => Date;
}

const PRESETS: { id: PresetId; label: string }[] = [
  { id: 'today', label: vscode.l10n.t('Today') },
  { id: 'yesterday', label: vscode.l10n.t('Yesterday') },
  { id: 'last7', label: vscode.l10n.t('Last 7 days') },
  { id: 'last30', label: vscode.l10n.t('Last 30 days') },
  { id: 'last90', label: vscode.l10n.t('Last 90 days') },
  { id: 'thisMonth', label: vscode.l10n.t('This month') },
  { id: 'lastMonth', label: vscode.l10n.t('Last month') },
];

export function registerPanelCommands(deps: PanelCommandDeps): vscode.Disposable[] {
  const now = deps.now ?? (() => new Date());

  async function pickRange(orgLabel: string): Promise<DateRange | undefined> {
    const p = deps.prompter();
    const n = now();
    const items = [
      ...PRESETS.map((preset) => {
        const r = presetRange(preset.id, n);
        return { label: preset.label, description: `${r.start.toISOString().slice(0, 10)} – ${r.end.toISOString().slice(0, 10)} UTC`, range: r as DateRange | undefined };
      }),
      { label: vscode.l10n.t('Custom range…'), description: vscode.l10n.t('ISO 8601 dates or date-times, both inclusive'), range: undefined as DateRange | undefined },
    ];
    const choice = await p.pick(items, { title: vscode.l10n.t('Fetch Records of {0}: range', orgLabel), placeHolder: vscode.l10n.t('Choose a range (UTC)') });
    if (!choice) return undefined;
    if (choice.range) return choice.range;
    const startText = await p.input({
      title: vscode.l10n.t('Fetch Records of {0}: start (inclusive)', orgLabel),
      prompt: vscode.l10n.t('YYYY-MM-DD (from 00:00 UTC) or an ISO 8601 date-time; UTC unless it has an offset.'),
      placeHolder: '2026-11-01',
      validateInput: (v) => startProblem(v, now()),
    });
    if (startText === undefined) return undefined;
    const start = parseBound(startText, 'start')!;
    const endText = await p.input({
      title: vscode.l10n.t('Fetch Records of {0}: end (inclusive)', orgLabel),
      prompt: vscode.l10n.t('YYYY-MM-DD (to 23:59:59.999 UTC) or an ISO 8601 date-time.'),
      placeHolder: start.toISOString().slice(0, 10),
      validateInput: (v) => endProblem(v, start),
    });
    if (endText === undefined) return undefined;
    const end = parseBound(endText, 'end')!;
    return { start, end, label: vscode.l10n.t('Custom range') };
  }

  return [
    vscode.commands.registerCommand(Commands.fetchRange, async (preset?: unknown) => {
      // The report files' domains are offered too: a range of them reads the files, as Open Records does.
      const orgs = deps.lookup.list().flatMap((account) =>
        account.organizations.map((org) => ({ label: organizationLabel(org), description: `${org.id} · ${account.label}`, account, org })),
      );
      // From a records panel (its empty state): that panel's organization, when it is one of these.
      const p = typeof preset === 'object' && preset !== null ? (preset as { accountId?: unknown; organizationId?: unknown }) : {};
      const given = orgs.find((o) => o.account.id === p.accountId && o.org.id === p.organizationId);
      if (orgs.length === 0) {
        const add = vscode.l10n.t('Add Account');
        if ((await deps.prompter().notify('info', vscode.l10n.t('Add an account and an organization first.'), add)) === add) {
          await vscode.commands.executeCommand(Commands.addAccount);
        }
        return;
      }
      // With one organization there is nothing to choose: the range step names it instead.
      const picked = given ?? (orgs.length === 1 ? orgs[0] : await deps.prompter().pick(orgs, { title: vscode.l10n.t('Fetch Records: organization'), placeHolder: vscode.l10n.t('Choose an organization'), matchOnDescription: true }));
      if (!picked) return;
      const range = await pickRange(picked.label);
      if (!range) return;
      const apiKey = await deps.lookup.getKey(picked.account.id);
      if (!apiKey) {
        void vscode.window.showErrorMessage(vscode.l10n.t('The API key of {0} is missing. Run "Update API Key".', picked.account.label));
        return;
      }
      // The request starts now and the panel opens at once, showing that it is loading: its
      // webview starts while the records download (that is most of the wait for a large range),
      // and it joins this same request instead of making another. The notification is the
      // cancellable progress; cancelling stops the request and closes the panel it opened.
      const scope = { accountId: picked.account.id, baseUrl: picked.account.baseUrl, apiKey, organizationId: picked.org.id };
      const controller = new AbortController();
      const fetching = deps.store.get(scope, range.start, range.end, { signal: controller.signal });
      fetching.catch(() => undefined); // handled below; the panel shows errors itself
      const target = { account: picked.account, org: picked.org, start: range.start, end: range.end };
      const opened = deps.panels.find(target) === undefined;
      const panel = deps.panels.open(target);
      try {
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Fetching DMARC records for {0}', picked.label), cancellable: true },
          (_progress, token) => {
            token.onCancellationRequested(() => controller.abort(new ApiError('cancelled', vscode.l10n.t('Cancelled.'))));
            return fetching;
          },
        );
      } catch (err) {
        if (err instanceof ApiError && err.kind === 'cancelled') {
          if (opened) panel.panel.dispose();
          return;
        }
        const message = err instanceof ApiError ? err.message : String((err as Error)?.message ?? err);
        deps.log.warn(`fetch range for ${picked.org.id}: ${message}`);
        // The panel shows the error with Retry (and Update API Key for a 403).
      }
    }),

    vscode.commands.registerCommand(Commands.openRecords, (node?: Node) => {
      if (!node || (node.kind !== 'bucket' && node.kind !== 'source' && node.kind !== 'ip' && node.kind !== 'healthSource')) {
        return vscode.commands.executeCommand(Commands.fetchRange);
      }
      const account = deps.lookup.get(node.account.id);
      const org = account?.organizations.find((o) => o.id === node.org.id);
      if (!account || !org) return undefined;
      // An IP opens its source's records searched for the IP address; a Health source its
      // records of the classes its verdict stands for (all of them for a Compliant one).
      const source = node.kind === 'healthSource' ? node.advice.source : node.kind !== 'bucket' ? node.source.source : undefined;
      const classes = node.kind === 'healthSource' && node.advice.verdict !== 'compliant' ? classesCountedAs(node.advice.verdict, node.advice.mark) : [];
      deps.panels.open({
        account, org, start: node.bucket.start, end: node.bucket.end,
        ...(source !== undefined ? { source } : {}),
        ...(node.kind === 'ip' ? { initialSearch: node.ip.ipAddress } : {}),
        ...(classes.length ? { initialClasses: classes } : {}),
      });
      return undefined;
    }),

    vscode.commands.registerCommand(Commands.exportSelectedJson, () => deps.panels.active?.command('exportJson')),
    vscode.commands.registerCommand(Commands.exportSelectedCsv, () => deps.panels.active?.command('exportCsv')),
  ];
}
