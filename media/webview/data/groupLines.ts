/**
 * The lines of the groups table, DOM-free and made only when asked: the level-0 groups in their
 * sort order, each open one followed by its subgroups. A million groups are a million lines the
 * table scrolls through, but only the ~30 on screen ever become objects.
 */
import type { Change } from '../../../src/advice/compare';
import type { GroupStats } from './groups';

export interface GroupLine {
  level: 0 | 1;
  stats: GroupStats;
  /** The level-0 group a subgroup belongs to. */
  parent?: GroupStats;
  expanded?: boolean;
  expandable?: boolean;
  /** With Compare on: how the group changed since the previous period (compareGroups.ts). */
  change?: Change;
}

export interface GroupLines {
  readonly length: number;
  /** Level-0 lines. */
  readonly groups: number;
  /** Line k (0 ≤ k < length): a new object each call. */
  at(k: number): GroupLine;
  /** The line of line k's level-0 group (k itself on level 0). */
  parentOf(k: number): number;
}

export const NO_LINES: GroupLines = { length: 0, groups: 0, at: () => { throw new RangeError('no group lines'); }, parentOf: () => 0 };

/** A sorted table of groups: `order` lists its groups' positions (GroupTable.sorted). */
export interface SortedGroups {
  /** A GroupTable, or one compared with the previous period (compareGroups.ts: its gone groups have code -1). */
  table: { stats(k: number): GroupStats; change?(k: number): Change };
  order: Uint32Array;
}

/** Line k's group k of `sorted`, with its change when compared. */
function lineOf(sorted: SortedGroups, p: number): { stats: GroupStats; change?: Change } {
  const k = sorted.order[p]!;
  const stats = sorted.table.stats(k);
  return sorted.table.change ? { stats, change: sorted.table.change(k) } : { stats };
}

/**
 * The lines of `top`; `open` lists the level-0 groups shown open (their positions in top.order,
 * any order) with their subgroups. `expandable`: every level-0 line can open (a second field is
 * chosen).
 */
export function groupLines(top: SortedGroups, expandable: boolean, open: readonly { at: number; sub: SortedGroups }[]): GroupLines {
  const opened = open.filter((o) => o.at >= 0 && o.at < top.order.length).sort((a, b) => a.at - b.at);
  let length = top.order.length;
  for (const o of opened) length += o.sub.order.length;
  const level0 = (p: number): GroupStats => top.table.stats(top.order[p]!);
  /** Where line k is: its level-0 position, and its subgroup's position (-1 on level 0). */
  const locate = (k: number): { p: number; sub: number; o?: (typeof opened)[number] } => {
    let before = 0; // sublines before the current group
    for (const o of opened) {
      const line = o.at + before;
      if (k <= line) break;
      if (k <= line + o.sub.order.length) return { p: o.at, sub: k - line - 1, o };
      before += o.sub.order.length;
    }
    return { p: k - before, sub: -1 };
  };
  return {
    length,
    groups: top.order.length,
    at(k) {
      if (!(k >= 0 && k < length)) throw new RangeError(`no group line ${k}`);
      const { p, sub, o } = locate(k);
      if (o && sub >= 0) return { level: 1, ...lineOf(o.sub, sub), parent: level0(p) };
      const line = lineOf(top, p);
      // A gone group (no rows now) has nothing to open.
      return { level: 0, ...line, expandable: expandable && line.stats.code >= 0, expanded: opened.some((x) => x.at === p) };
    },
    parentOf(k) {
      const { p, sub } = locate(k);
      if (sub < 0) return k;
      let before = 0;
      for (const o of opened) {
        if (o.at >= p) break;
        before += o.sub.order.length;
      }
      return p + before;
    },
  };
}
