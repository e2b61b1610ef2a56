/**
 * Which rows are selected and which one has focus, DOM-free. Rows are known by their record
 * index, so a selection outlives sorting and filtering; ranges (Shift) are taken in the
 * current display order.
 */

/** The part of the view selection works on: display order and its inverse. */
export interface Ordering {
  order: Uint32Array;
  /** Display position of each row index, -1 when filtered out. */
  posOf: Int32Array;
}

export interface Modifiers {
  shift: boolean;
  /** Ctrl on Windows/Linux, Cmd on macOS. */
  ctrl: boolean;
}

export type NavKey = 'up' | 'down' | 'pageUp' | 'pageDown' | 'home' | 'end';

export class Selection {
  private bits: Uint8Array = new Uint8Array(0);
  /** Number of selected rows, hidden ones included. */
  count = 0;
  /** Row index where Shift ranges start, or -1. */
  anchor = -1;
  /** Row index with keyboard focus (the detail pane's row), or -1. */
  focus = -1;

  /** Forget everything (the rows were replaced). */
  reset(length = 0): void {
    this.bits = new Uint8Array(length);
    this.count = 0;
    this.anchor = -1;
    this.focus = -1;
  }

  /** Makes room for `length` rows, keeping the selection. */
  resize(length: number): void {
    if (this.bits.length >= length) return;
    const b = new Uint8Array(Math.max(length, this.bits.length * 2));
    b.set(this.bits);
    this.bits = b;
  }

  has(index: number): boolean {
    return this.bits[index] === 1;
  }

  set(index: number, on: boolean): void {
    if (index < 0) return;
    this.resize(index + 1);
    if ((this.bits[index] === 1) === on) return;
    this.bits[index] = on ? 1 : 0;
    this.count += on ? 1 : -1;
  }

  clear(): void {
    this.bits.fill(0);
    this.count = 0;
  }

  selectOnly(index: number): void {
    this.clear();
    this.set(index, true);
    this.anchor = index;
    this.focus = index;
  }

  toggle(index: number): void {
    this.set(index, !this.has(index));
    this.anchor = index;
    this.focus = index;
  }

  /** Selects the rows between two display positions, inclusive. */
  selectPositions(view: Ordering, a: number, b: number, additive: boolean): void {
    if (!additive) this.clear();
    const lo = Math.max(0, Math.min(a, b));
    const hi = Math.min(view.order.length - 1, Math.max(a, b));
    for (let p = lo; p <= hi; p++) this.set(view.order[p]!, true);
  }

  /** Every row in the view (the filtered rows) and nothing else. */
  selectAll(view: Ordering): void {
    this.clear();
    for (let p = 0; p < view.order.length; p++) this.set(view.order[p]!, true);
  }

  /** A pointer click on a row. */
  click(view: Ordering, index: number, mods: Modifiers): void {
    if (mods.shift) {
      const anchorPos = this.anchor >= 0 ? view.posOf[this.anchor] ?? -1 : -1;
      const pos = view.posOf[index] ?? -1;
      if (anchorPos < 0 || pos < 0) {
        this.selectOnly(index);
        return;
      }
      this.selectPositions(view, anchorPos, pos, mods.ctrl);
      this.focus = index;
      return;
    }
    if (mods.ctrl) this.toggle(index);
    else this.selectOnly(index);
  }

  /** Space: toggle the focused row. */
  toggleFocused(): void {
    if (this.focus >= 0) this.toggle(this.focus);
  }

  /**
   * Arrow/Page/Home/End: moves focus; plain keys select the new row alone, Shift extends from the
   * anchor, Ctrl moves focus without touching the selection. Returns whether focus moved.
   */
  navigate(view: Ordering, key: NavKey, mods: Modifiers, pageSize: number): boolean {
    const n = view.order.length;
    if (n === 0) return false;
    const cur = this.focus >= 0 ? view.posOf[this.focus] ?? -1 : -1;
    const page = Math.max(1, pageSize - 1);
    let target: number;
    if (cur < 0) {
      // Nothing focused (or the focused row is filtered out): Up and End start from the bottom.
      target = key === 'end' || (this.focus < 0 && (key === 'up' || key === 'pageUp')) ? n - 1 : 0;
    } else {
      switch (key) {
        case 'up': target = cur - 1; break;
        case 'down': target = cur + 1; break;
        case 'pageUp': target = cur - page; break;
        case 'pageDown': target = cur + page; break;
        case 'home': target = 0; break;
        case 'end': target = n - 1; break;
      }
    }
    target = Math.max(0, Math.min(n - 1, target));
    const index = view.order[target]!;
    if (mods.shift) {
      let anchorPos = this.anchor >= 0 ? view.posOf[this.anchor] ?? -1 : -1;
      if (anchorPos < 0) {
        this.anchor = cur >= 0 ? this.focus : index;
        anchorPos = cur >= 0 ? cur : target;
      }
      this.selectPositions(view, anchorPos, target, mods.ctrl);
      this.focus = index;
    } else if (mods.ctrl) {
      this.focus = index;
    } else {
      this.selectOnly(index);
    }
    return target !== cur;
  }

  /** The selected rows in the given order (e.g. every row in sort order, hidden ones included). */
  selectedIn(order: Uint32Array): Uint32Array {
    const out = new Uint32Array(this.count);
    let k = 0;
    for (let p = 0; p < order.length && k < out.length; p++) {
      const i = order[p]!;
      if (this.bits[i] === 1) out[k++] = i;
    }
    return k === out.length ? out : out.subarray(0, k);
  }

  /** How many selected rows the view shows. */
  visibleCount(view: Ordering): number {
    if (this.count === 0) return 0;
    let k = 0;
    for (let p = 0; p < view.order.length; p++) if (this.bits[view.order[p]!] === 1) k++;
    return k;
  }
}
