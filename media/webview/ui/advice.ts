/**
 * The Advice region: am I ready to enforce, and what do I fix first, for the rows shown (it
 * follows the search, the facets and the day range). The readiness step and its figures, then the
 * sources that are not Compliant, most legitimate mail at risk first, each with its verdict, its
 * reasons, its fix, emails and pass rate, and the owner's mark when it has one. Choosing one
 * (click, Enter) filters the table to that source and the classes counted as its verdict (with a
 * mark, those it moves too); Copy puts its fix on the clipboard (through the host). Collapsible,
 * a list navigable with the arrow keys. Record fields are only ever set as text.
 */
import * as l10n from '@vscode/l10n';
import { markLabel, markRule } from '../../../src/advice/marks';
import type { PeriodHealth, SourceAdvice } from '../../../src/advice/tally';
import { DEFAULT_THRESHOLDS, DKIM_REASONS, SPF_REASONS, termOf, type AdviceThresholds, type Verdict } from '../../../src/advice/vocabulary';
import type { PublishedPolicy } from '../../../src/api/types';
import type { AdviceExportRow } from '../../../src/shared/protocol';
import { badge, el, icon, iconButton } from '../dom';
import { formatCount, formatPercent, revealBidi } from '../format';

/** Sources listed at most (the rest are counted in a line). */
const MAX_SOURCES = 50;

export interface AdviceHost {
  onToggle(open: boolean): void;
  onChoose(source: SourceAdvice): void;
  /** A Header From domain's readiness was chosen: show its rows. */
  onDomain(domain: string): void;
  onCopy(text: string): void;
  onExport(format: 'json' | 'csv'): void;
}

const STEP_ICONS: Readonly<Record<string, string>> = {
  'no-mail': 'circle-slash', losing: 'error', fix: 'warning', forwarded: 'info', quarantine: 'pass', reject: 'pass', enforced: 'shield',
};

/** The label of a verdict ('' reads as none). */
export const verdictLabel = (v: Verdict): string => (v ? termOf(v)!.label : l10n.t('no verdict'));

/** The sources the Advice lists: every one not Compliant, most legitimate mail at risk, then most unauthenticated mail, first. */
export function adviceSources(h: PeriodHealth): SourceAdvice[] {
  return h.sources
    .filter((s) => s.verdict !== 'compliant' && s.verdict !== '')
    .sort((a, b) => b.failing - a.failing || b.mix[3] - a.mix[3] || (a.source < b.source ? -1 : 1));
}

/** The most common failing reason of each side, as labels: "Signed only by another domain · SPF passes, Return-Path not aligned". */
export function reasonsText(s: SourceAdvice): string {
  const top = <K extends string>(order: readonly K[], counts: Partial<Record<K, number>>): K | undefined => {
    let best: K | undefined;
    for (const k of order) if ((counts[k] ?? 0) > 0 && (best === undefined || counts[k]! > counts[best]!)) best = k;
    return best;
  };
  const dkim = top(DKIM_REASONS, s.facts.dkim);
  const spf = top(SPF_REASONS, s.facts.spf);
  return [dkim, spf].filter((x): x is NonNullable<typeof x> => !!x).map((c) => termOf(c)!.label).join(' · ');
}

/** The listed sources as the export writes them. */
export function adviceExportRows(sources: readonly SourceAdvice[]): AdviceExportRow[] {
  return sources.map((s) => ({
    source: s.source,
    verdict: verdictLabel(s.verdict),
    reasons: reasonsText(s),
    emails: s.emails,
    failingEmails: s.mix[1] + s.mix[2] + s.mix[3],
    quarantinedOrRejected: s.lost,
    dmarcPass: s.passRate ?? null,
    fix: s.fix,
  }));
}

/** A fix's text with its `quoted` domains, selectors and IPs as code: text nodes only, never HTML. */
export function fixNodes(fix: string): (Node | string)[] {
  return fix.split('`').map((part, k) => (k % 2 ? el('code', { text: part }) : el('span', { text: part })));
}

/** Thresholds the host sends (untrusted shape): each a fraction 0–1, else its default. */
export function thresholdsFrom(raw: unknown): AdviceThresholds {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const share = (v: unknown, d: number): number => (typeof v === 'number' && v >= 0 && v <= 1 ? v : d);
  return { compliant: share(r.compliant, DEFAULT_THRESHOLDS.compliant), quarantine: share(r.quarantine, DEFAULT_THRESHOLDS.quarantine), reject: share(r.reject, DEFAULT_THRESHOLDS.reject) };
}

/** The policies the host says the rows' reports state, checked (untrusted shape: a wrong field is left out). */
export interface Published {
  fromReports: boolean;
  latest: PublishedPolicy | undefined;
  byDomain: Map<string, PublishedPolicy>;
}

const POLICY_TEXT = ['p', 'sp', 'np', 'adkim', 'aspf', 'fo', 'testing'] as const;

function policyOf(raw: unknown): PublishedPolicy | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const out: Record<string, string | number> = { domain: typeof r.domain === 'string' ? r.domain.slice(0, 300) : '' };
  for (const k of POLICY_TEXT) if (typeof r[k] === 'string') out[k] = (r[k] as string).slice(0, 40);
  if (typeof r.pct === 'number' && Number.isInteger(r.pct) && r.pct >= 0 && r.pct <= 100) out.pct = r.pct;
  return out as unknown as PublishedPolicy;
}

export function publishedAdvice(raw: unknown): Published {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const byDomain = new Map<string, PublishedPolicy>();
  if (Array.isArray(r.byDomain))
    for (const e of r.byDomain.slice(0, 10_000)) {
      const p = Array.isArray(e) && typeof e[0] === 'string' ? policyOf(e[1]) : undefined;
      if (p) byDomain.set(e[0] as string, p);
    }
  return { fromReports: r.fromReports === true, latest: policyOf(r.latest), byDomain };
}

/** `p=reject; sp=none; adkim=r; aspf=r`: a published policy's tags, in the record's order. */
export function policyText(p: PublishedPolicy): string {
  const tags: string[] = [];
  for (const k of ['p', 'sp', 'np', 'adkim', 'aspf'] as const) if (p[k]) tags.push(`${k}=${p[k]}`);
  if (p.pct !== undefined) tags.push(`pct=${p.pct}`);
  if (p.testing) tags.push(`t=${p.testing}`);
  return tags.join('; ');
}

export class AdvicePanel {
  readonly element: HTMLElement;
  private readonly toggle: HTMLButtonElement;
  private readonly step: HTMLElement;
  private readonly body: HTMLElement;
  private readonly figures: HTMLElement;
  private readonly domains: HTMLElement;
  private readonly list: HTMLElement;
  private readonly more: HTMLElement;
  private shown: SourceAdvice[] = [];
  private cursor = 0;

  constructor(private readonly host: AdviceHost) {
    this.element = el('section', { class: 'advice', attrs: { 'aria-label': l10n.t('Advice'), 'data-testid': 'advice' } });
    this.toggle = el('button', { class: 'advice-toggle', attrs: { type: 'button', 'aria-expanded': 'true', 'aria-controls': 'advice-body', 'data-testid': 'advice-toggle' } }, [
      icon('chevron-down', 'advice-chevron'),
      el('span', { class: 'advice-title', text: l10n.t('Advice') }),
    ]);
    this.toggle.addEventListener('click', () => this.host.onToggle(this.toggle.getAttribute('aria-expanded') !== 'true'));
    this.step = el('span', { class: 'advice-step', attrs: { 'data-testid': 'advice-step', role: 'status' } });
    const json = iconButton('json', l10n.t('Export the advice as JSON'), 'advice-export-json');
    json.addEventListener('click', () => this.host.onExport('json'));
    const csv = iconButton('table', l10n.t('Export the advice as CSV'), 'advice-export-csv');
    csv.addEventListener('click', () => this.host.onExport('csv'));
    const bar = el('div', { class: 'advice-bar' }, [this.toggle, this.step, json, csv]);
    this.figures = el('div', { class: 'advice-figures', attrs: { 'data-testid': 'advice-figures' } });
    this.list = el('ul', { class: 'advice-list', attrs: { role: 'listbox', 'aria-label': l10n.t('Sources to fix'), 'data-testid': 'advice-list' } });
    this.domains = el('ul', { class: 'advice-domains', attrs: { 'aria-label': l10n.t('Readiness by Header From domain'), 'data-testid': 'advice-domains' } });
    this.domains.addEventListener('click', (e) => {
      const b = (e.target as HTMLElement).closest<HTMLElement>('.advice-domain');
      if (b?.dataset.domain !== undefined) this.host.onDomain(b.dataset.domain);
    });
    this.more = el('div', { class: 'advice-more muted' });
    this.body = el('div', { class: 'advice-body', attrs: { id: 'advice-body' } }, [this.figures, this.domains, this.list, this.more]);
    this.element.append(bar, this.body);
    this.list.addEventListener('click', (e) => {
      const target = e.target as HTMLElement;
      const item = target.closest<HTMLElement>('.advice-item');
      if (!item) return;
      const k = Number(item.dataset.index);
      const s = this.shown[k];
      if (!s) return;
      this.focus(k);
      if (target.closest('.advice-copy')) this.host.onCopy(s.fix);
      else this.host.onChoose(s);
    });
    this.list.addEventListener('keydown', (e) => this.onKey(e));
  }

  setOpen(open: boolean): void {
    this.toggle.setAttribute('aria-expanded', String(open));
    this.element.classList.toggle('closed', !open);
    this.body.hidden = !open;
  }

  /** Rows are still arriving: the advice waits for them all (it is about the whole period). */
  pending(): void {
    this.step.replaceChildren(icon('loading', 'codicon-modifier-spin'), el('span', { text: l10n.t('Judged once every row is in…') }));
    this.step.dataset.kind = 'pending';
    this.figures.replaceChildren();
    this.domains.replaceChildren();
    this.domains.hidden = true;
    this.list.replaceChildren();
    this.list.hidden = true;
    this.more.textContent = '';
    this.shown = [];
  }

  /** The sources listed now (for exports). */
  get sources(): readonly SourceAdvice[] {
    return this.shown;
  }

  update(h: PeriodHealth, published?: Published): void {
    const r = h.readiness;
    this.step.replaceChildren(icon(STEP_ICONS[r.step.kind] ?? 'info', `advice-step-icon step-${r.step.kind}`), el('span', { text: r.step.text, title: r.step.text }));
    this.step.dataset.kind = r.step.kind;
    const figure = (label: string, value: string, title: string, testid: string): HTMLElement =>
      el('span', { class: 'advice-figure', title, attrs: { 'data-testid': testid } }, [el('span', { class: 'muted', text: label }), el('span', { class: 'advice-value', text: value })]);
    this.figures.replaceChildren(
      figure(l10n.t('Legitimate mail passing'), r.share === undefined ? '–' : formatPercent(r.share), l10n.t('Of all mail but Unauthenticated, the share that passes DMARC'), 'advice-share'),
      figure(
        l10n.t('At risk under enforcement'),
        l10n.t('{0} emails, {1} sources', formatCount(r.atRisk.emails), formatCount(r.atRisk.sources)),
        l10n.t('Legitimate mail (Needs fixing, Forwarded) that p=quarantine would quarantine and p=reject would reject today'),
        'advice-at-risk',
      ),
      figure(l10n.t('Enforcement would stop'), l10n.t('{0} emails', formatCount(r.stopped)), l10n.t('Unauthenticated mail: spoofing, or servers nobody set up'), 'advice-stopped'),
      figure(
        l10n.t('Receivers already held'),
        l10n.t('{0} quarantined, {1} rejected', formatCount(r.observed.quarantine), formatCount(r.observed.reject)),
        l10n.t('Legitimate mail that failed DMARC and that receivers quarantined or rejected in this period'),
        'advice-observed',
      ),
    );
    if (published) {
      const p = published.latest;
      this.figures.append(
        p
          ? figure(l10n.t('Published'), policyText(p) || '–', l10n.t('The policy of {0} as the latest report states it (the readiness takes it into account)', p.domain), 'advice-policy')
          : figure(l10n.t('Published'), published.fromReports ? '–' : l10n.t('not in the API’s rows'), l10n.t('The API gives no published policy: the advice is from the rows alone'), 'advice-policy'),
      );
    }
    this.updateDomains(h, published);
    const all = adviceSources(h);
    this.shown = all.slice(0, MAX_SOURCES);
    this.cursor = Math.min(this.cursor, Math.max(0, this.shown.length - 1));
    this.list.replaceChildren(...this.shown.map((s, k) => this.item(s, k)));
    this.list.hidden = this.shown.length === 0;
    this.more.textContent = all.length > MAX_SOURCES ? l10n.t('{0} more sources not listed; filter to see them', all.length - MAX_SOURCES) : all.length === 0 && r.emails > 0 ? l10n.t('Every source is Compliant.') : '';
  }

  /**
   * With more than one Header From domain, each one's step and legitimate share (and its published
   * policy, when a report states it), the domain with most legitimate mail first: the next step
   * is often not the same for each.
   */
  private updateDomains(h: PeriodHealth, published: Published | undefined): void {
    const list = h.domains.length > 1 ? [...h.domains].sort((a, b) => b.readiness.legitimate - a.readiness.legitimate || (a.domain < b.domain ? -1 : 1)) : [];
    this.domains.hidden = list.length === 0;
    this.domains.replaceChildren(
      ...list.map(({ domain, readiness: r }) => {
        const policy = published?.byDomain.get(domain);
        const share = r.share === undefined ? '–' : formatPercent(r.share);
        const button = el('button', {
          class: 'advice-domain',
          title: l10n.t('{0}: {1} Click to show its rows.', domain, r.step.text),
          attrs: { type: 'button', 'data-domain': domain, 'data-testid': 'advice-domain', 'data-kind': r.step.kind },
        }, [
          icon(STEP_ICONS[r.step.kind] ?? 'info', `advice-step-icon step-${r.step.kind}`),
          el('span', { class: 'advice-domain-name', text: domain || l10n.t('(no Header From)') }),
          el('span', { class: 'advice-domain-share muted', text: l10n.t('{0} of legitimate mail passes', share) }),
          ...(policy ? [el('span', { class: 'advice-domain-policy muted', text: policyText(policy) })] : []),
          el('span', { class: 'advice-domain-step', text: r.step.text }),
        ]);
        button.setAttribute('aria-label', revealBidi(l10n.t('{0}: {1} of legitimate mail passes. {2}', domain, share, r.step.text)));
        return el('li', {}, [button]);
      }),
    );
  }

  private item(s: SourceAdvice, k: number): HTMLElement {
    const rule = s.verdict ? termOf(s.verdict)!.rule : '';
    const mix = l10n.t('Compliant {0} · Forwarded {1} · Needs fixing {2} · Unauthenticated {3}', ...s.mix.map(formatCount));
    const copy = el('button', { class: 'icon-button advice-copy', title: l10n.t('Copy Fix Text'), attrs: { type: 'button', tabindex: -1, 'aria-label': l10n.t('Copy the fix for {0}', s.source) } }, [icon('copy')]);
    const li = el('li', {
      class: 'advice-item',
      title: `${verdictLabel(s.verdict)}: ${rule}\n${mix}`,
      attrs: { role: 'option', tabindex: k === this.cursor ? 0 : -1, 'aria-selected': 'false', 'data-index': k, 'data-testid': 'advice-item', 'data-source': s.source },
    }, [
      el('div', { class: 'advice-line' }, [
        badge('rowClass', verdictLabel(s.verdict)),
        el('span', { class: 'advice-source', text: s.source || l10n.t('(unknown source)'), title: s.source }),
        ...(s.mark ? [el('span', { class: 'advice-mark muted', text: markLabel(s.mark), title: markRule(s.mark), attrs: { 'data-testid': 'advice-mark' } })] : []),
        el('span', { class: 'advice-emails muted', text: l10n.t('{0} of {1} emails fail', formatCount(s.mix[1] + s.mix[2] + s.mix[3]), formatCount(s.emails)) }),
        el('span', { class: 'advice-pass muted', text: l10n.t('{0} pass', s.passRate === undefined ? '–' : formatPercent(s.passRate)) }),
        el('span', { class: 'spacer' }),
        copy,
      ]),
      el('div', { class: 'advice-reasons muted', text: reasonsText(s) }),
      el('div', { class: 'advice-fix' }, fixNodes(s.fix)),
    ]);
    // Read out like text, and it holds report data: bidirectional controls as escapes (dom.ts).
    li.setAttribute('aria-label', revealBidi(l10n.t('{0}, {1}: {2}', s.source, verdictLabel(s.verdict), s.fix)));
    return li;
  }

  private focus(k: number): void {
    const items = this.list.querySelectorAll<HTMLElement>('.advice-item');
    if (!items.length) return;
    this.cursor = Math.max(0, Math.min(items.length - 1, k));
    items.forEach((it, j) => it.setAttribute('tabindex', j === this.cursor ? '0' : '-1'));
    items[this.cursor]!.focus();
  }

  private onKey(e: KeyboardEvent): void {
    const n = this.shown.length;
    if (!n) return;
    let next: number | undefined;
    if (e.key === 'ArrowDown') next = this.cursor + 1;
    else if (e.key === 'ArrowUp') next = this.cursor - 1;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = n - 1;
    else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.host.onChoose(this.shown[this.cursor]!);
      return;
    } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c') {
      e.preventDefault();
      this.host.onCopy(this.shown[this.cursor]!.fix);
      return;
    }
    if (next === undefined) return;
    e.preventDefault();
    this.focus(next);
  }
}
