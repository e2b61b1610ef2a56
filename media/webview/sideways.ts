/**
 * Where the records grid is scrolled sideways, kept across a squeeze of the page. A panel made
 * narrow for a while (an export beside it, a smaller window) shows a column or two, so the user
 * scrolls sideways to read the others; when the panel is wide again the grid went on showing those,
 * its first columns (Source, IP address, Emails: the answer columns) scrolled off for good
 * (issue 43). The position taken at the page's widest width comes back with that width: scrolls
 * made while the page was narrower are undone, those made at full width (with a pane opened or
 * closed, which moves no page edge) are kept.
 */
export class SidewaysScroll {
  private wide: { width: number; left: number };

  constructor(pageWidth: number) {
    this.wide = { width: pageWidth, left: 0 };
  }

  /** The grid was scrolled (sideways or not) to `left`, the page `pageWidth` wide. */
  scrolled(left: number, pageWidth: number): void {
    if (pageWidth >= this.wide.width) this.wide = { width: pageWidth, left };
  }

  /** The page is `pageWidth` wide now: where to scroll the grid sideways, or undefined to leave it. */
  resized(pageWidth: number): number | undefined {
    if (pageWidth < this.wide.width) return undefined;
    this.wide = { width: pageWidth, left: this.wide.left };
    return this.wide.left;
  }
}
