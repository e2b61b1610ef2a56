/**
 * Ranges typed or picked by the user (the "Fetch Records for Date Range…" command): presets and
 * custom bounds, both inclusive, UTC unless the text carries an offset.
 */
import { DAY_MS, endOfUtcDay, formatDay, parseUtcDay, startOfUtcDay } from './buckets';

export interface DateRange {
  start: Date;
  end: Date;
  label: string;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A bound as typed: `YYYY-MM-DD` (a whole UTC day: its first millisecond for a start, its last
 * for an end) or an ISO 8601 date-time, in UTC unless it has an offset. Undefined when the text
 * is not a real date.
 */
export function parseBound(text: string, which: 'start' | 'end'): Date | undefined {
  const s = text.trim();
  const day = parseUtcDay(s);
  if (day) return which === 'start' ? day : new Date(day.getTime() + DAY_MS - 1);
  const m = DATE_TIME.exec(s);
  if (!m || !parseUtcDay(m[1])) return undefined;
  const [h, min, sec] = [Number(m[2]), Number(m[3]), Number(m[4] ?? 0)];
  if (h > 23 || min > 59 || sec > 59) return undefined;
  const offset = m[6] ? (m[6].toUpperCase() === 'Z' ? 'Z' : m[6].length === 5 ? `${m[6].slice(0, 3)}:${m[6].slice(3)}` : m[6]) : 'Z';
  const ms = m[5] ? m[5].padEnd(4, '0') : '.000';
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${String(sec).padStart(2, '0')}${ms}${offset}`);
  return Number.isFinite(t) ? new Date(t) : undefined;
}

/** Why a typed start is not acceptable, or undefined. */
export function startProblem(text: string, now: Date): string | undefined {
  if (!text.trim()) return 'Enter a start date, e.g. 2026-11-01 or 2026-11-01T08:00:00Z.';
  const start = parseBound(text, 'start');
  if (!start) return 'Not a date: use YYYY-MM-DD or an ISO 8601 date-time such as 2026-11-01T08:00:00+01:00.';
  if (start.getTime() > now.getTime()) return 'The start is in the future: there are no reports yet.';
  return undefined;
}

/** Why a typed end is not acceptable for the given start, or undefined. */
export function endProblem(text: string, start: Date): string | undefined {
  if (!text.trim()) return 'Enter an end date (inclusive), e.g. 2026-11-30.';
  const end = parseBound(text, 'end');
  if (!end) return 'Not a date: use YYYY-MM-DD or an ISO 8601 date-time.';
  if (end.getTime() < start.getTime()) return 'The end is before the start.';
  return undefined;
}

export type PresetId = 'today' | 'yesterday' | 'last7' | 'last30' | 'last90' | 'thisMonth' | 'lastMonth';

/** The preset ranges, whole UTC days, both bounds inclusive. */
export function presetRange(id: PresetId, now: Date): DateRange {
  const today = startOfUtcDay(now);
  const days = (n: number, label: string): DateRange => ({ start: new Date(today.getTime() - (n - 1) * DAY_MS), end: endOfUtcDay(now), label });
  switch (id) {
    case 'today':
      return { start: today, end: endOfUtcDay(now), label: `Today (${formatDay(today)})` };
    case 'yesterday': {
      const y = new Date(today.getTime() - DAY_MS);
      return { start: y, end: new Date(today.getTime() - 1), label: `Yesterday (${formatDay(y)})` };
    }
    case 'last7':
      return days(7, 'Last 7 days');
    case 'last30':
      return days(30, 'Last 30 days');
    case 'last90':
      return days(90, 'Last 90 days');
    case 'thisMonth': {
      const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      return { start, end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - 1), label: 'This month' };
    }
    case 'lastMonth': {
      const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
      return { start, end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1), label: 'Last month' };
    }
  }
}

/** "1 Nov 2026 – 30 Nov 2026", with times when the bounds are not whole UTC days. */
export function rangeLabel(start: Date, end: Date): string {
  const wholeDays = start.getTime() === startOfUtcDay(start).getTime() && end.getTime() === endOfUtcDay(end).getTime();
  if (wholeDays) {
    return start.getTime() === startOfUtcDay(end).getTime() ? formatDay(start) : `${formatDay(start)} – ${formatDay(end)}`;
  }
  return `${start.toISOString().replace('.000Z', 'Z')} – ${end.toISOString().replace('.999Z', 'Z')}`;
}
