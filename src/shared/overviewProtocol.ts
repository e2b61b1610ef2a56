/**
 * Every message between the Overview panel (host, src/overview) and its webview
 * (media/webview/overview), as src/shared/protocol.ts is for the records panel. What the host
 * receives is untrusted: validated with these zod schemas, invalid messages logged and ignored.
 * The webview imports only the types (`import type`), so zod stays out of its bundle.
 *
 * Rows are few (one per organization) and small: they travel as plain objects, each one whole,
 * so a row posted twice or after `init` only replaces itself.
 */
import * as z from 'zod';
import type { ChangeStatus } from '../advice/compare';
import type { StepKind } from '../advice/readiness';

/** The periods the Overview offers, in whole UTC days ending today. */
export const OVERVIEW_DAYS = [7, 30, 90] as const;
export type OverviewDays = (typeof OVERVIEW_DAYS)[number];

/** An organization's row: its identity, then its figures once they are in, or why they are not. */
export interface OverviewRow {
  /** JSON of [accountId, organizationId]: what the webview sends back to open or export it. */
  key: string;
  organizationId: string;
  /** The organization's display name (its ID when it has none). */
  name: string;
  account: string;
  /** A report-files domain, not an organization of an API account. */
  reportFiles: boolean;
  state: 'loading' | 'loaded' | 'error' | 'cancelled';
  /** Why the row has no figures (`error`), in words. */
  error?: string;
  figures?: {
    emails: number;
    passRate: number | null;
    before: number;
    passBefore: number | null;
    deltaEmails: number;
    deltaPass: number | null;
    status: ChangeStatus;
    needsFixing: number;
    unauthenticated: number;
    readiness: { kind: StepKind; label: string; text: string };
    daily: (number | null)[];
    lastDay: string | null;
  };
}

/** Where a load stands, for the toolbar's status and the benchmark. */
export interface OverviewProgress {
  total: number;
  loaded: number;
  failed: number;
  cancelled: number;
  done: boolean;
}

export interface OverviewInit {
  type: 'init';
  /** Increases with every load (another period, Refresh): rows of an older load are dropped. */
  load: number;
  days: OverviewDays;
  /** The period and the one it is compared with, as dates (UTC). */
  rangeLabel: string;
  previousLabel: string;
  /** The period's first day (epoch ms, 00:00 UTC), for the sparkline's dates. */
  startMs: number;
  rows: OverviewRow[];
  progress: OverviewProgress;
}

// ---- host → webview --------------------------------------------------------------------------

export type OverviewHostMessage =
  | OverviewInit
  | { type: 'row'; load: number; row: OverviewRow; progress: OverviewProgress }
  | { type: 'progress'; load: number; progress: OverviewProgress }
  | { type: 'response'; requestId: number; ok: true; result: unknown }
  | { type: 'response'; requestId: number; ok: false; error: string };

// ---- webview → host (validated) --------------------------------------------------------------

const rowKey = z.string().min(1).max(2_000);

export const overviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Another period: 7, 30 or 90 days. */
  z.object({ type: z.literal('setPeriod'), days: z.union([z.literal(7), z.literal(30), z.literal(90)]) }),
  /** Fetch every organization again, past the cache. */
  z.object({ type: z.literal('refresh') }),
  /** Open this organization's records for the period. */
  z.object({ type: z.literal('open'), key: rowKey }),
  /** The rows in the order shown, as a JSON or CSV tab. */
  z.object({ type: z.literal('export'), requestId: z.number().int(), format: z.enum(['json', 'csv']), order: z.array(rowKey).max(10_000) }),
]);
export type OverviewMessage = z.infer<typeof overviewMessageSchema>;
