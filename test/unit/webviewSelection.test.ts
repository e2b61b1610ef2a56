import { strict as assert } from 'node:assert';
import { Selection, type Ordering } from '../../media/webview/selection';

/** A view over rows 0…n-1: `order` lists the shown row indices in display order. */
function viewOf(order: number[], n = Math.max(0, ...order) + 1): Ordering {
  const posOf = new Int32Array(n).fill(-1);
  order.forEach((i, p) => (posOf[i] = p));
  return { order: Uint32Array.from(order), posOf };
}

const none = { shift: false, ctrl: false };
const shift = { shift: true, ctrl: false };
const ctrl = { shift: false, ctrl: true };
const both = { shift: true, ctrl: true };

function selected(s: Selection, n: number): number[] {
  return [...Array(n).keys()].filter((i) => s.has(i));
}

describe('webview selection', () => {
  it('click selects one row, Ctrl/Cmd+click toggles, Shift+click selects the range in display order', () => {
    const s = new Selection();
    s.reset(10);
    const v = viewOf([9, 3, 5, 1, 7, 0]);
    s.click(v, 3, none);
    assert.deepEqual(selected(s, 10), [3]);
    assert.equal(s.focus, 3);
    s.click(v, 7, shift);
    assert.deepEqual(selected(s, 10), [1, 3, 5, 7]);
    assert.equal(s.count, 4);
    assert.equal(s.anchor, 3);
    assert.equal(s.focus, 7);
    s.click(v, 5, ctrl);
    assert.deepEqual(selected(s, 10), [1, 3, 7]);
    s.click(v, 9, ctrl);
    assert.deepEqual(selected(s, 10), [1, 3, 7, 9]);
    // Shift ranges start from the last clicked row and replace; Ctrl+Shift adds.
    s.click(v, 1, shift);
    assert.deepEqual(selected(s, 10), [1, 3, 5, 9]);
    s.click(v, 0, ctrl);
    s.click(v, 0, none);
    s.click(v, 5, both);
    assert.deepEqual(selected(s, 10), [0, 1, 5, 7]);
  });

  it('arrow keys move focus and select, Shift extends from the anchor, Ctrl moves focus only', () => {
    const s = new Selection();
    s.reset(6);
    const v = viewOf([5, 4, 3, 2, 1, 0]);
    s.navigate(v, 'down', none, 3);
    assert.equal(s.focus, 5, 'nothing focused: Down starts at the top');
    s.navigate(v, 'down', none, 3);
    assert.deepEqual(selected(s, 6), [4]);
    s.navigate(v, 'down', shift, 3);
    s.navigate(v, 'down', shift, 3);
    assert.deepEqual(selected(s, 6), [2, 3, 4]);
    s.navigate(v, 'up', shift, 3);
    assert.deepEqual(selected(s, 6), [3, 4]);
    s.navigate(v, 'down', ctrl, 3);
    s.navigate(v, 'down', ctrl, 3);
    assert.equal(s.focus, 1);
    assert.deepEqual(selected(s, 6), [3, 4]);
    s.toggleFocused();
    assert.deepEqual(selected(s, 6), [1, 3, 4]);
    s.navigate(v, 'end', none, 3);
    assert.deepEqual(selected(s, 6), [0]);
    s.navigate(v, 'pageUp', none, 3);
    assert.equal(s.focus, 2, 'a page is the viewport less one row');
    s.navigate(v, 'home', shift, 3);
    assert.deepEqual(selected(s, 6), [2, 3, 4, 5]);
    assert.equal(s.navigate(v, 'up', none, 3), false, 'at the top already');
    s.navigate(v, 'pageDown', none, 100);
    assert.equal(s.focus, 0);
  });

  it('Up with nothing focused starts at the bottom; an empty view does nothing', () => {
    const s = new Selection();
    s.reset(3);
    s.navigate(viewOf([0, 1, 2]), 'up', none, 5);
    assert.equal(s.focus, 2);
    assert.equal(s.navigate(viewOf([], 3), 'down', none, 5), false);
  });

  it('select all takes the filtered rows only; the selection survives sorting and filtering', () => {
    const s = new Selection();
    s.reset(8);
    s.selectAll(viewOf([6, 2, 4], 8));
    assert.deepEqual(selected(s, 8), [2, 4, 6]);
    assert.equal(s.count, 3);
    const filtered = viewOf([4, 0, 1], 8);
    assert.equal(s.visibleCount(filtered), 1);
    assert.deepEqual([...s.selectedIn(Uint32Array.from([7, 6, 5, 4, 3, 2, 1, 0]))], [6, 4, 2]);
    assert.deepEqual([...s.selectedIn(filtered.order)], [4]);
  });

  it('a Shift+click whose anchor is filtered out selects just the clicked row', () => {
    const s = new Selection();
    s.reset(5);
    s.click(viewOf([0, 1, 2, 3, 4]), 1, none);
    s.click(viewOf([0, 2, 3, 4], 5), 3, shift);
    assert.deepEqual(selected(s, 5), [3]);
    assert.equal(s.anchor, 3);
  });

  it('Shift+arrow with the anchor filtered out starts a range at the focused row', () => {
    const s = new Selection();
    s.reset(5);
    s.click(viewOf([0, 1, 2, 3, 4]), 1, none);
    s.focus = 2;
    s.navigate(viewOf([0, 2, 3, 4], 5), 'down', shift, 3);
    assert.deepEqual(selected(s, 5), [2, 3]);
  });

  it('grows with the rows, keeps counts exact and clears', () => {
    const s = new Selection();
    s.reset(2);
    s.set(1, true);
    s.set(1, true);
    s.set(40, true);
    assert.equal(s.count, 2);
    s.resize(100);
    assert.ok(s.has(40));
    s.set(40, false);
    s.set(40, false);
    assert.equal(s.count, 1);
    s.clear();
    assert.equal(s.count, 0);
    assert.equal(s.has(1), false);
  });
});
