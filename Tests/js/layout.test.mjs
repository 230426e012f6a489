import assert from "node:assert/strict";
import { test } from "node:test";
import { columnOrder, completeLayout, defaultLayout, draggedWidth, frozenColumns, keptColumns, moveColumn, resetLayout, toggleColumn }
  from "../../Sources/SortKitServer/Assets/layout.mjs";
import { withSeed } from "./seeded.mjs";

const names = ["title", "author", "price", "status"];

test("a stored layout is completed; junk is the default", () => {
  assert.deepEqual(completeLayout(null), defaultLayout());
  assert.deepEqual(completeLayout([1, 2]), defaultLayout());
  assert.deepEqual(completeLayout("text"), defaultLayout());
  assert.deepEqual(completeLayout({ hidden: "price", order: 7, widths: null, frozen: 1 }), { ...defaultLayout(), frozen: 1 });
  assert.deepEqual(completeLayout({ hidden: ["price"] }).hidden, ["price"]);
});

test("the saved order comes first, gone columns drop out, new ones follow in table order", () => {
  const layout = { ...defaultLayout(), order: ["price", "gone", "title"] };
  assert.deepEqual(columnOrder(layout, names), ["price", "title", "author", "status"]);
  assert.deepEqual(columnOrder(defaultLayout(), names), names);
  assert.deepEqual(columnOrder(layout, []), []);
});

test("at phone width the sorted columns and the first shown one stay", () => {
  const layout = { ...defaultLayout(), hidden: ["title"] };
  assert.deepEqual([...keptColumns(layout, names, ["price"])].sort(), ["author", "price"]);
  assert.deepEqual([...keptColumns(defaultLayout(), names, [])], ["title"]);
});

test("frozen columns are the first shown ones", () => {
  const layout = { ...defaultLayout(), hidden: ["title"], frozen: 2 };
  assert.deepEqual(frozenColumns(layout, names), ["author", "price"]);
  assert.deepEqual(frozenColumns({ ...layout, frozen: "junk" }, names), []);
  assert.deepEqual(frozenColumns({ ...layout, frozen: 9 }, names), ["author", "price", "status"]);
});

test("the last shown column can't be hidden", () => {
  let layout = defaultLayout();
  for (const name of names.slice(0, 3)) {
    const result = toggleColumn(layout, name, false, names);
    assert.equal(result.refused, false);
    layout = result.layout;
  }
  const last = toggleColumn(layout, "status", false, names);
  assert.equal(last.refused, true);
  assert.deepEqual(last.layout.hidden, ["title", "author", "price"]);
  assert.deepEqual(toggleColumn(layout, "title", true, names).layout.hidden, ["author", "price"]);
});

test("moves stop at the table's edges", () => {
  assert.equal(moveColumn(defaultLayout(), names, "title", -1), null);
  assert.equal(moveColumn(defaultLayout(), names, "status", 1), null);
  assert.equal(moveColumn(defaultLayout(), names, "nope", 1), null);
  assert.deepEqual(moveColumn(defaultLayout(), names, "title", 1).order, ["author", "title", "price", "status"]);
});

test("random moves keep every column exactly once (seeded)", () => {
  withSeed("column moves", (random) => {
    let layout = defaultLayout();
    for (let step = 0; step < 5000; step += 1) {
      const moved = moveColumn(layout, names, random.pick(names), random.pick([-1, 1]));
      if (moved) layout = moved;
      const order = columnOrder(layout, names);
      assert.deepEqual([...order].sort(), [...names].sort());
    }
  });
});

test("reset keeps widths and direction", () => {
  const layout = { hidden: ["price"], order: ["price"], widths: { title: 120 }, frozen: 2, rtl: true };
  assert.deepEqual(resetLayout(layout), { hidden: [], order: [], widths: { title: 120 }, frozen: 0, rtl: true });
});

test("a resize never goes under 40 px", () => {
  assert.equal(draggedWidth(100, 500, 530.4), 130);
  assert.equal(draggedWidth(100, 500, 0), 40);
});
