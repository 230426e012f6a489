import assert from "node:assert/strict";
import { test } from "node:test";
import { counted, goneRowId, importURL, sortDescription, tableNameForFile } from "../../Sources/SortKitServer/Assets/describe.mjs";
import { browserStorage, forgetTable, readJSON, storageKey, writeJSON } from "../../Sources/SortKitServer/Assets/keys.mjs";
import { MemoryStorage } from "./seeded.mjs";

test("the sort in words follows the priority numbers", () => {
  assert.equal(sortDescription([]), "Not sorted");
  assert.equal(sortDescription([{ column: "a", direction: "none", indicator: "" }]), "Not sorted");
  assert.equal(sortDescription([
    { column: "price", direction: "descending", indicator: "▼2" },
    { column: "title", direction: "ascending", indicator: "▲1" },
    { column: "n", direction: "none", indicator: "" },
  ]), "Sorted by title ascending, then price descending");
  assert.equal(sortDescription([{ column: "名前", direction: "ascending", indicator: undefined }]), "Sorted by 名前 ascending");
});

test("counts, gone rows and import names", () => {
  assert.equal(counted(1, "row"), "1 row");
  assert.equal(counted(0, "selected row"), "0 selected rows");
  assert.equal(goneRowId("table 'books' has no row 42"), 42);
  assert.equal(goneRowId("has no row -3"), -3);
  assert.equal(goneRowId("has no row 42 really"), null);
  assert.equal(tableNameForFile("Planets.CSV"), "Planets");
  assert.equal(tableNameForFile("a.tsv.csv"), "a.tsv");
  assert.equal(importURL("my books", "x.TSV"), "/api/tables?name=my%20books&delimiter=tab");
  assert.equal(importURL("a&b", "x.csv"), "/api/tables?name=a%26b");
});

test("one key spelling per kind, and storage that fails is not an error", () => {
  assert.equal(storageKey("view", "books"), "sortkit.view.books");
  const storage = new MemoryStorage();
  writeJSON(storage, storageKey("columns", "t"), { frozen: 1 });
  assert.deepEqual(readJSON(storage, "sortkit.columns.t", null), { frozen: 1 });
  storage.setItem("bad", "{");
  assert.equal(readJSON(storage, "bad", "fallback"), "fallback");
  assert.equal(readJSON(storage, "null", 5), 5);
  forgetTable(storage, "t", ["columns"]);
  assert.equal(storage.getItem("sortkit.columns.t"), null);
  const off = { getItem() { throw new Error("SecurityError"); }, setItem() { throw new Error("off"); }, removeItem() { throw new Error("off"); } };
  assert.equal(readJSON(off, "x", 1), 1);
  writeJSON(off, "x", 1);
  forgetTable(off, "t", ["view"]);
});

test("denied site storage is a stand-in that keeps nothing, not an error", () => {
  const denied = Object.getOwnPropertyDescriptor(globalThis, "sessionStorage");
  Object.defineProperty(globalThis, "sessionStorage", { configurable: true, get() { throw new Error("SecurityError"); } });
  try {
    const storage = browserStorage("sessionStorage");
    storage.setItem("k", "v");
    assert.equal(storage.getItem("k"), null);
    storage.removeItem("k");
  } finally {
    if (denied) Object.defineProperty(globalThis, "sessionStorage", denied); else delete globalThis.sessionStorage;
  }
  assert.equal(browserStorage("noSuchStorage").getItem("x"), null);
  const real = new MemoryStorage();
  globalThis.fakeStorage = real;
  assert.equal(browserStorage("fakeStorage"), real);
  delete globalThis.fakeStorage;
});
