import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';

/**
 * Accounts and their organizations live in globalState (never in settings: a workspace must not be
 * able to redirect a key to another host); each account's API key lives only in SecretStorage,
 * keyed by the account id.
 */
export interface Organization {
  /** The organizationId sent to the API. */
  id: string;
  name?: string;
}

export interface Account {
  id: string;
  label: string;
  baseUrl: string;
  organizations: Organization[];
}

const STATE_KEY = 'dmarc.accounts.v1';
const secretKey = (accountId: string) => `dmarc.apiKey.${accountId}`;

export class AccountStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly secrets: vscode.SecretStorage,
  ) {}

  list(): Account[] {
    const raw = this.state.get<unknown>(STATE_KEY);
    // Stored state may be damaged or written by another version: an organization that is not one
    // is dropped (it cannot be shown or used), its account and every other field kept.
    return Array.isArray(raw) ? (raw.filter(isAccount) as Account[]).map((a) => (a.organizations.every(isOrganization) ? a : { ...a, organizations: a.organizations.filter(isOrganization) })) : [];
  }

  get(accountId: string): Account | undefined {
    return this.list().find((a) => a.id === accountId);
  }

  async add(label: string, baseUrl: string, apiKey: string): Promise<Account> {
    const account: Account = { id: randomUUID(), label, baseUrl, organizations: [] };
    // Secret first: an account is never listed without its key.
    await this.secrets.store(secretKey(account.id), apiKey);
    await this.save([...this.list(), account]);
    return account;
  }

  async remove(accountId: string): Promise<void> {
    await this.save(this.list().filter((a) => a.id !== accountId));
    await this.secrets.delete(secretKey(accountId));
  }

  async rename(accountId: string, label: string): Promise<void> {
    await this.update(accountId, (a) => ({ ...a, label }));
  }

  /**
   * The account's key; undefined when there is none, or when the secret store cannot give it
   * (a locked or broken keychain throws): every caller then says the key is missing and offers
   * to set it, instead of failing without a word.
   */
  async getKey(accountId: string): Promise<string | undefined> {
    try {
      const key: unknown = await this.secrets.get(secretKey(accountId));
      return typeof key === 'string' ? key : undefined;
    } catch {
      return undefined;
    }
  }

  async setKey(accountId: string, apiKey: string): Promise<void> {
    await this.secrets.store(secretKey(accountId), apiKey);
    this.changed.fire();
  }

  async addOrganization(accountId: string, org: Organization): Promise<void> {
    await this.update(accountId, (a) => ({
      ...a,
      organizations: [...a.organizations.filter((o) => o.id !== org.id), org],
    }));
  }

  async renameOrganization(accountId: string, orgId: string, name: string | undefined): Promise<void> {
    await this.update(accountId, (a) => ({
      ...a,
      organizations: a.organizations.map((o) => (o.id === orgId ? { ...o, name: name || undefined } : o)),
    }));
  }

  async removeOrganization(accountId: string, orgId: string): Promise<void> {
    await this.update(accountId, (a) => ({ ...a, organizations: a.organizations.filter((o) => o.id !== orgId) }));
  }

  private async update(accountId: string, f: (a: Account) => Account): Promise<void> {
    await this.save(this.list().map((a) => (a.id === accountId ? f(a) : a)));
  }

  private async save(accounts: Account[]): Promise<void> {
    await this.state.update(STATE_KEY, accounts);
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function organizationLabel(org: Organization): string {
  return org.name ? org.name : org.id;
}

function isOrganization(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const o = v as Partial<Organization>;
  return typeof o.id === 'string' && (o.name === undefined || typeof o.name === 'string');
}

function isAccount(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const a = v as Partial<Account>;
  return typeof a.id === 'string' && typeof a.label === 'string' && typeof a.baseUrl === 'string' && Array.isArray(a.organizations);
}
