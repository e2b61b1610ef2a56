/**
 * Every message between the records panel (host, src/panel) and its webview (media/webview), in
 * one place. Messages the host receives are untrusted and validated with these zod schemas;
 * invalid ones are logged and ignored. Requests carry a `requestId` and always get an answer
 * (`ok: false` with an error when they fail).
 *
 * Rows travel as binary, columnar chunks (src/shared/rowCodec.ts), not as objects: VS Code
 * serialises webview messages on its UI thread, and 100k record objects would stall it, while an
 * ArrayBuffer crosses as it is. The webview never receives the raw rows in bulk; it asks for one
 * row's JSON when it shows its detail.
 */
import * as z from 'zod';
import { COLUMNS, FACETS, GROUP_FIELDS, TREND_SPLITS, type GroupField } from './columns';
import type { SourceMark } from '../advice/marks';
import type { AdviceThresholds } from '../advice/vocabulary';
import type { PublishedPolicy } from '../api/types';

export { COLUMNS, FACETS };
export type { ColumnId, FacetId, GroupField, RowTuple, TrendSplit } from './columns';

/** A group-by field: a built-in one or `extra:<name>` (an extra field the rows carry). */
const groupField = z.union([z.enum(GROUP_FIELDS), z.string().regex(/^extra:.{1,200}$/s)]).transform((v) => v as GroupField);

/** What the webview keeps with setState, so a reloaded window restores the same view. */
export const viewStateSchema = z.object({
  /** Unused since column visibility became part of the user's layout; kept so older states parse. */
  hiddenColumns: z.array(z.enum(COLUMNS)).max(COLUMNS.length).default([]),
  sort: z.object({ column: z.enum(COLUMNS), descending: z.boolean() }).optional(),
  search: z.string().max(1000).default(''),
  facets: z.partialRecord(z.enum(FACETS), z.array(z.string().max(200)).max(100)).default({}),
  scrollTop: z.number().nonnegative().default(0),
  focused: z.number().int().nonnegative().optional(),
  /** The days chosen on the trend (inclusive instants). */
  days: z.object({ startMs: z.number().finite(), endMs: z.number().finite() }).optional(),
  groupBy: groupField.optional(),
  thenBy: groupField.optional(),
  /** Group filters (AND), from the groups table. */
  groups: z.array(z.object({ field: groupField, key: z.string().max(2000) })).max(4).default([]),
  trendSplit: z.enum(TREND_SPLITS).default('category'),
  share: z.boolean().default(false),
  facetWeight: z.enum(['emails', 'rows']).default('emails'),
  detailOpen: z.boolean().default(true),
  facetsOpen: z.boolean().default(true),
  adviceOpen: z.boolean().default(true),
  trendOpen: z.boolean().default(true),
  /** The Compare switch: the previous period of equal length beside this one (groups' Δ, the trend's line). */
  compare: z.boolean().default(false),
});
export type ViewState = z.infer<typeof viewStateSchema>;

/** The user's column layout, kept in globalState for every panel: order, widths, hidden columns. */
export const columnLayoutSchema = z.object({
  order: z.array(z.enum(COLUMNS)).max(COLUMNS.length).default([]),
  widths: z.partialRecord(z.enum(COLUMNS), z.number().int().min(40).max(2000)).default({}),
  hidden: z.array(z.enum(COLUMNS)).max(COLUMNS.length - 1).default([]),
  /** The panes the user last opened or closed (Advice, trend, details): how a new panel starts. */
  panes: z.object({ advice: z.boolean().optional(), trend: z.boolean().optional(), detail: z.boolean().optional() }).optional(),
});
export type ColumnLayout = z.infer<typeof columnLayoutSchema>;

/** One line of an exported groups table. Rates are fractions (0–1), null without emails. */
export const groupExportRowSchema = z.object({
  group: z.string().max(20_000),
  subgroup: z.string().max(20_000).optional(),
  rows: z.number().int().nonnegative(),
  emails: z.number().nonnegative().finite(),
  share: z.number().nonnegative().finite().nullable(),
  dmarcPass: z.number().min(0).max(1).nullable(),
  alignedSpf: z.number().min(0).max(1).nullable(),
  alignedDkim: z.number().min(0).max(1).nullable(),
  /** The group's verdict (a label), when the rows were judged. */
  verdict: z.string().max(100).optional(),
  delivered: z.number().nonnegative().finite(),
  quarantined: z.number().nonnegative().finite(),
  rejected: z.number().nonnegative().finite(),
  first: z.string().max(40),
  last: z.string().max(40),
  /** With Compare on: the previous period's emails, the changes (pass in points), new/gone, the verdict before. */
  emailsBefore: z.number().nonnegative().finite().optional(),
  deltaEmails: z.number().finite().optional(),
  deltaPass: z.number().min(-100).max(100).nullable().optional(),
  change: z.enum(['new', 'gone', 'kept']).optional(),
  verdictBefore: z.string().max(100).optional(),
});
export type GroupExportRow = z.infer<typeof groupExportRowSchema>;

/** One source of an exported Advice list (src/advice): rates are fractions (0–1), null without emails. */
export const adviceExportRowSchema = z.object({
  source: z.string().max(20_000),
  verdict: z.string().max(100),
  reasons: z.string().max(2_000),
  emails: z.number().nonnegative().finite(),
  failingEmails: z.number().nonnegative().finite(),
  quarantinedOrRejected: z.number().nonnegative().finite(),
  dmarcPass: z.number().min(0).max(1).nullable(),
  fix: z.string().max(20_000),
});
export type AdviceExportRow = z.infer<typeof adviceExportRowSchema>;

/** The policies a panel's rows' reports state: the latest over all, and per Header From domain. */
export interface PublishedAdvice {
  fromReports: boolean;
  latest?: PublishedPolicy;
  byDomain?: [string, PublishedPolicy][];
}

/** The panel's identity, kept in the webview state for the serializer (no key, no records). */
export const panelIdentitySchema = z.object({
  accountId: z.string().min(1).max(200),
  organizationId: z.string().min(1).max(500),
  start: z.string().datetime(),
  end: z.string().datetime(),
  source: z.string().max(500).optional(),
});
export type PanelIdentity = z.infer<typeof panelIdentitySchema>;

// ---- host → webview --------------------------------------------------------------------------

export type HostMessage =
  /**
   * Sent first after the webview said ready; `state` is the saved view state to restore, if any.
   * `rows`: how many rows of which load were posted before it (rows go out before the webview is
   * ready, and a page that loads slowly can miss the first: it asks for them again, `resend`).
   */
  | { type: 'init'; title: string; rangeLabel: string; identity: PanelIdentity; state?: ViewState; initialSearch?: string; initialClasses?: string[]; layout?: ColumnLayout; rows?: { load: number; sent: number }; thresholds?: AdviceThresholds; marks?: [string, SourceMark][] }
  /**
   * What the Advice judges by beyond the rows: the `dmarc.advice` settings (sent when they change),
   * once the rows are in, the policy their reports state (report files; the API states none), and
   * the owner's marks on the organization's sources (src/advice/marks.ts; every one, sent when one changes).
   */
  | { type: 'advice'; thresholds?: AdviceThresholds; published?: PublishedAdvice; marks?: [string, SourceMark][] }
  /** A load started (`load`: the id its rows will carry). */
  | { type: 'loading'; message: string; load?: number }
  /**
   * Rows `offset…offset+count-1`; `data` is one binary chunk (src/shared/rowCodec.ts), raw
   * deflated when `packed` (src/panel/rowSender.ts). `total` is the rows known so far; `growing`
   * says more are still arriving. `last` on the final chunk.
   */
  | { type: 'rows'; load: number; offset: number; count: number; total: number; growing: boolean; data: Uint8Array; last: boolean; packed?: boolean }
  /** Rows were dropped or kept with warnings while reading the response: shown as a notice. */
  | { type: 'notices'; notices: string[] }
  /** `partial`: the load failed after this many rows arrived; they stay shown, marked incomplete. */
  | { type: 'error'; message: string; canRetry: boolean; canUpdateKey: boolean; partial?: number }
  /**
   * Compare: the previous period's rows, encoded and chunked as `rows` are (their own load ids),
   * kept apart from the panel's rows; `compareStatus` says it is being fetched or why it failed.
   */
  | { type: 'compareRows'; load: number; offset: number; count: number; total: number; growing: boolean; data: Uint8Array; last: boolean; packed?: boolean }
  | { type: 'compareStatus'; state: 'loading' | 'error'; message?: string }
  /** The answer to a request. */
  | { type: 'response'; requestId: number; ok: true; result: unknown }
  | { type: 'response'; requestId: number; ok: false; error: string }
  /** A host command (palette, keybinding) asks the webview to act on its selection. */
  | { type: 'command'; command: 'exportJson' | 'exportCsv' | 'copyJson' | 'selectAll' };

/** The result of a `getRow` request. */
export interface RowDetail {
  index: number;
  /** The row exactly as the server sent it, pretty-printed. */
  json: string;
  dkims: { selector: string; domain: string; result: string }[];
}

// ---- webview → host (validated) --------------------------------------------------------------

const index = z.number().int().nonnegative().max(50_000_000);
/**
 * The page's width in CSS pixels (its innerWidth) when it asks for an export: a wide panel gets the
 * export beside it, a narrower one a tab behind it (src/export/openExport.ts exportPlace).
 */
const pageWidth = z.number().finite().nonnegative().max(100_000).optional();

export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Post the rows of `load` again from row `from` (the webview missed them). */
  z.object({ type: z.literal('resend'), load: z.number().int().nonnegative(), from: index }),
  /** Whether messages of rows wait in the page unread (it is behind), or it keeps up (src/panel/rowSender.ts). */
  z.object({ type: z.literal('rowsBehind'), behind: z.boolean() }),
  z.object({ type: z.literal('retry') }),
  /** The Compare switch is on: send the previous period's rows (fetched once, cached by the store). */
  z.object({ type: z.literal('compare') }),
  /** Post the previous period's rows of `load` again from row `from`. */
  z.object({ type: z.literal('compareResend'), load: z.number().int().nonnegative(), from: index }),
  z.object({ type: z.literal('updateKey') }),
  /** The empty state's "Fetch Another Range…": the palette's command, for this panel's organization. */
  z.object({ type: z.literal('fetchRange') }),
  z.object({ type: z.literal('getRow'), requestId: z.number().int(), index }),
  z.object({
    type: z.literal('export'),
    requestId: z.number().int(),
    format: z.enum(['json', 'csv']),
    /** Row indices (as sent in `rows`) in display order; at most every row. */
    indices: z.array(index).max(50_000_000),
    /** What the rows are, for the message shown: the selection, or all filtered rows. */
    what: z.enum(['selected', 'filtered']),
    pageWidth,
  }),
  z.object({ type: z.literal('copyRow'), requestId: z.number().int(), index }),
  z.object({ type: z.literal('selectionChanged'), count: z.number().int().nonnegative() }),
  z.object({ type: z.literal('saveState'), state: viewStateSchema }),
  z.object({ type: z.literal('saveLayout'), layout: columnLayoutSchema }),
  z.object({
    type: z.literal('exportGroups'),
    requestId: z.number().int(),
    format: z.enum(['json', 'csv']),
    /** What was grouped, for the file: `Source → IP address`. */
    title: z.string().max(500),
    rows: z.array(groupExportRowSchema).max(1_000_000),
    pageWidth,
  }),
  z.object({
    type: z.literal('exportAdvice'),
    requestId: z.number().int(),
    format: z.enum(['json', 'csv']),
    /** What the advice is of, for the file: the readiness step. */
    title: z.string().max(2_000),
    rows: z.array(adviceExportRowSchema).max(10_000),
    pageWidth,
  }),
  /** Text the user asked to copy (the Advice's fix of a source). */
  z.object({ type: z.literal('copyText'), requestId: z.number().int(), text: z.string().min(1).max(20_000) }),
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;
