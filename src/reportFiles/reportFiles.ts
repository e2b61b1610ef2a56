import * as vscode from 'vscode';
import { readFile, writeFile, mkdir, rename } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import * as z from 'zod';
import type { Account } from '../accounts/accountStore';
import { ReportLibrary, type LoadStats } from '../import/library';
import { DiskParsedCache } from '../import/parsedCache';
import { MemoryRdnsCache, addReverseDns, type PtrResolver } from '../import/rdns';

/** The account id the report files are shown under: never an id AccountStore makes (UUIDs). */
export const REPORT_FILES_ID = 'report-files';
const LOCATIONS_KEY = 'dmarc.reportFiles.locations.v1';
const locationsSchema = z.array(z.string().min(1).max(4096)).max(1000);

export interface ReportFilesDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  /** The reverse DNS lookup to use now (undefined: none; the setting is off or tests run). */
  resolver: () => PtrResolver | undefined;
}

/**
 * The report files and folders the user opened: kept in globalState (paths only), read through
 * the ReportLibrary (parsed reports cached in global storage), watched for changes, and offered
 * to the tree and the panel as one more account whose organizations are the policy domains.
 */
export class ReportFiles implements vscode.Disposable {
  readonly library: ReportLibrary;
  private readonly changed = new vscode.EventEmitter<'loaded' | 'names'>();
  /** Fires after every load (and after reverse DNS filled in source names). */
  readonly onDidChange = this.changed.event;
  private loading: Promise<LoadStats | undefined> = Promise.resolve(undefined);
  private readonly watchers = new Map<string, vscode.Disposable>();
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private rdnsCache: MemoryRdnsCache | undefined;
  private readonly rdnsFile: string;
  private loadSeq = 0;

  constructor(private readonly deps: ReportFilesDeps) {
    const storage = deps.context.globalStorageUri.fsPath;
    this.rdnsFile = join(storage, 'rdns-v1.json');
    this.library = new ReportLibrary({ cache: new DiskParsedCache(join(storage, 'reports'), (l) => deps.log.debug(l)), log: (l) => deps.log.info(l) });
    if (this.locations().length) this.reload();
  }

  /** The saved locations (files and folders), valid or not on disk. */
  locations(): string[] {
    const parsed = locationsSchema.safeParse(this.deps.context.globalState.get(LOCATIONS_KEY));
    return parsed.success ? parsed.data : [];
  }

  /** Resolves when the load under way (if any) has finished. */
  async ready(): Promise<void> {
    await this.loading.catch(() => undefined);
  }

  /** The report files as an account: its organizations are the policy domains read. */
  account(): Account | undefined {
    if (!this.locations().length) return undefined;
    return {
      id: REPORT_FILES_ID,
      label: vscode.l10n.t('Report Files'),
      baseUrl: 'file:',
      organizations: this.library.domains().map((d) => ({ id: d.domain })),
    };
  }

  async add(paths: readonly string[]): Promise<LoadStats | undefined> {
    const current = this.locations();
    const next = [...current, ...paths.filter((p) => !current.includes(p))];
    await this.deps.context.globalState.update(LOCATIONS_KEY, next);
    return this.reload();
  }

  async remove(path: string): Promise<LoadStats | undefined> {
    await this.deps.context.globalState.update(LOCATIONS_KEY, this.locations().filter((p) => p !== path));
    return this.reload();
  }

  /** Reads every location again (unchanged files come from the parsed-report cache). */
  reload(): Promise<LoadStats | undefined> {
    const seq = ++this.loadSeq;
    const paths = this.locations();
    this.watch(paths);
    const run = async (): Promise<LoadStats | undefined> => {
      await this.loading.catch(() => undefined);
      if (seq !== this.loadSeq) return undefined;
      const stats = await vscode.window.withProgress(
        { location: { viewId: 'dmarc.explorer' }, title: vscode.l10n.t('Reading report files…') },
        () => this.library.load(paths),
      );
      this.changed.fire('loaded');
      void this.reverseDns(seq);
      return stats;
    };
    this.loading = run();
    return this.loading;
  }

  /** Fills rDNS and source names from the resolver (if any) and the disk cache, then says so. */
  private async reverseDns(seq: number): Promise<void> {
    const resolve = this.deps.resolver();
    if (!resolve) return;
    // The library hands out copies of its arrays but the rows themselves: they are filled in place.
    const records = this.library.domains().flatMap((d) => this.library.records(d.domain, -Infinity, Infinity));
    if (!records.length) return;
    if (!this.rdnsCache) {
      const text = await readFile(this.rdnsFile, 'utf8').catch(() => undefined);
      let json: unknown;
      try {
        json = text === undefined ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      this.rdnsCache = MemoryRdnsCache.fromFile(json);
    }
    try {
      await addReverseDns(records, { resolve, cache: this.rdnsCache });
      const tmp = `${this.rdnsFile}.tmp`;
      await mkdir(dirname(this.rdnsFile), { recursive: true });
      await writeFile(tmp, JSON.stringify(this.rdnsCache.toFile()));
      await rename(tmp, this.rdnsFile);
    } catch (e) {
      this.deps.log.warn(`reverse DNS for report files: ${(e as Error).message}`);
    }
    if (seq === this.loadSeq) this.changed.fire('names');
  }

  /**
   * Folders and files are watched: a new, changed or deleted report reloads (once per burst).
   * Watchers of locations still open are kept as they are (recreating them can lose events).
   */
  private watch(paths: readonly string[]): void {
    for (const [p, w] of this.watchers) {
      if (!paths.includes(p)) {
        w.dispose();
        this.watchers.delete(p);
      }
    }
    const kick = () => {
      clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => void this.reload(), 1000);
    };
    for (const p of paths) {
      if (this.watchers.has(p)) continue;
      const pattern = /\.(xml|gz|zip|eml)$/i.test(p)
        ? new vscode.RelativePattern(vscode.Uri.file(dirname(p)), basename(p))
        : new vscode.RelativePattern(vscode.Uri.file(p), '**/*.{xml,gz,zip,eml,XML,GZ,ZIP,EML}');
      try {
        const w = vscode.workspace.createFileSystemWatcher(pattern);
        w.onDidCreate(kick);
        w.onDidChange(kick);
        w.onDidDelete(kick);
        this.watchers.set(p, w);
      } catch (e) {
        this.deps.log.warn(`cannot watch ${p}: ${(e as Error).message}`);
      }
    }
  }

  dispose(): void {
    clearTimeout(this.reloadTimer);
    for (const w of this.watchers.values()) w.dispose();
    this.changed.dispose();
  }
}

/** What the panel and its commands need of accounts: AccountStore's, with the report files as one more. */
export interface AccountLookup {
  get(accountId: string): Account | undefined;
  /** Every account, the report files last (when any are open). */
  list(): Account[];
  getKey(accountId: string): Thenable<string | undefined>;
  /** Resolves when accounts that load asynchronously (the report files) are there. */
  ready(): Promise<void>;
}

export function withReportFiles(accounts: { get(id: string): Account | undefined; list(): Account[]; getKey(id: string): Thenable<string | undefined> }, files: ReportFiles): AccountLookup {
  return {
    get: (id) => (id === REPORT_FILES_ID ? files.account() : accounts.get(id)),
    list: () => {
      const reports = files.account();
      return reports ? [...accounts.list(), reports] : accounts.list();
    },
    // Report files need no key; the store's fetch reads them from the library.
    getKey: (id) => (id === REPORT_FILES_ID ? Promise.resolve('local') : accounts.getKey(id)),
    ready: () => files.ready(),
  };
}
