import assert from "node:assert/strict";
import { test } from "node:test";
import { Selection } from "../../Sources/SortKitServer/Assets/selection.mjs";
import { MemoryStorage, withSeed } from "./seeded.mjs";

test("toggle, range from the anchor in shown order, and per-table keys", () => {
  const storage = new MemoryStorage();
  const selection = new Selection(storage);
  selection.toggle("books", 7);
  selection.extend("books", [3, 7, 1, 9, 4], 9);
  assert.deepEqual([...selection.ids("books")].sort((a, b) => a - b), [1, 7, 9]);
  assert.equal(storage.getItem("sortkit.selection.books"), "[7,1,9]");
  // Another table has its own selection, and no anchor there.
  selection.extend("people", [1, 2, 3], 3);
  assert.deepEqual([...selection.ids("people")], [3]);
});

test("an anchor that left the page makes shift-click a toggle", () => {
  const selection = new Selection(new MemoryStorage());
  selection.toggle("t", 50);
  selection.extend("t", [1, 2, 3], 2);
  assert.deepEqual([...selection.ids("t")].sort(), [2, 50]);
});

test("all matching: checked only while all its ids are selected for the same search", () => {
  const selection = new Selection(new MemoryStorage());
  selection.toggle("t", 100);
  selection.selectAll("t", "zola", [1, 2, 3]);
  assert.deepEqual(selection.allMatching("t", "zola"), [1, 2, 3]);
  assert.equal(selection.allMatching("t", "other"), null);
  selection.forget("t", [2]);
  assert.equal(selection.allMatching("t", "zola"), null);
  selection.toggle("t", 2);
  selection.deselectAll("t", "zola");
  assert.deepEqual([...selection.ids("t")], [100]);
  // Without "all matching" for this search, unchecking clears everything.
  selection.deselectAll("t", "zola");
  assert.deepEqual([...selection.ids("t")], []);
});

test("corrupt or missing storage reads as empty, and a full storage is not an error", () => {
  const storage = new MemoryStorage();
  storage.setItem("sortkit.selection.t", "{not json");
  storage.setItem("sortkit.all.t", "\"text\"");
  const selection = new Selection(storage);
  assert.deepEqual([...selection.ids("t")], []);
  assert.equal(selection.allMatching("t", ""), null);
  const full = { getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); }, removeItem: () => {} };
  const over = new Selection(full);
  over.toggle("t", 1);
  over.clear("t");
});

test("random clicks agree with a plain set oracle (seeded)", () => {
  withSeed("selection oracle", (random) => {
    const selection = new Selection(new MemoryStorage());
    const oracle = new Set();
    let anchor = null;
    const shown = Array.from({ length: 25 }, (_, i) => i * 3 + 1);
    for (let step = 0; step < 3000; step += 1) {
      const id = random.pick(shown);
      if (random.int(3) === 0 && anchor != null) {
        selection.extend("t", shown, id);
        const a = shown.indexOf(anchor), b = shown.indexOf(id);
        for (const other of shown.slice(Math.min(a, b), Math.max(a, b) + 1)) oracle.add(other);
      } else {
        selection.toggle("t", id);
        if (oracle.has(id)) oracle.delete(id); else oracle.add(id);
        anchor = id;
      }
      assert.deepEqual([...selection.ids("t")].sort((x, y) => x - y), [...oracle].sort((x, y) => x - y));
    }
  });
});
