import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeKey, encodeValue, savedQuery, viewURL } from "../../Sources/SortKitServer/Assets/query.mjs";
import { withSeed } from "./seeded.mjs";

test("sort specs stay readable, everything else that ends a value is encoded", () => {
  assert.equal(encodeValue("status:enum=todo|done,-price"), "status:enum%3Dtodo|done,-price");
  assert.equal(encodeValue("le guin"), "le+guin");
  assert.equal(encodeValue("a&b=c#d+e%f"), "a%26b%3Dc%23d%2Be%25f");
  assert.equal(encodeValue("e\u0301<"), "e%CC%81%3C");
  assert.equal(encodeKey("filter[release date]"), "filter[release+date]");
  assert.equal(encodeKey("filter[a]b]"), "filter[a%5Db]");
  assert.equal(encodeKey("q"), "q");
});

test("the controls' URL leaves out blanks, a sort under a preset and the default size", () => {
  const entries = [["q", "  "], ["preset", "Cheapest"], ["size", "25"], ["sort", "-price"], ["filter[status]", "done"]];
  assert.equal(viewURL("/tables/books", entries), "/tables/books?preset=Cheapest&filter[status]=done");
  assert.equal(viewURL("/tables/books", [["q", "zola hidden"], ["size", "100"], ["sort", "title,price"]]),
    "/tables/books?q=zola+hidden&size=100&sort=title,price");
  assert.equal(viewURL("/tables/books", []), "/tables/books");
  assert.equal(viewURL("/tables/books", [["page", "3"], ["q", "x"]], { page: "" }), "/tables/books?q=x");
  // A change takes its name's first place, as FormData.set does, and drops repeats.
  assert.equal(viewURL("/t", [["q", "a"], ["size", "50"], ["q", "b"]], { q: "c" }), "/t?q=c&size=50");
  assert.equal(viewURL("/t", [["q", "a"]], { size: "10" }), "/t?q=a&size=10");
});

test("a repeated name keeps its last value, at its first place", () => {
  assert.equal(viewURL("/t", [["q", "a"], ["size", "10"], ["q", "b"]]), "/t?q=b&size=10");
});

test("hostile and odd values come back unchanged through URLSearchParams (seeded)", () => {
  withSeed("query round trip", (random) => {
    const alphabet = ["a", "Z", "0", " ", "+", "&", "=", "#", "%", "?", "/", ",", ":", "|", "[", "]", "é", "e\u0301", "<", "\"",
      "'", "\u2028", "🧪", "ß", "\u0000", "\t", "\uFEFF", "漢", "!", "*", "(", ")"];
    const text = (length) => Array.from({ length }, () => random.pick(alphabet)).join("");
    for (let round = 0; round < 2000; round += 1) {
      const entries = [];
      const names = ["q", "sort", "preset", "size", "page", "filter[" + text(1 + random.int(6)) + "]"];
      for (let i = 0; i < 1 + random.int(6); i += 1) entries.push([random.pick(names), random.int(5) === 0 ? "" : text(random.int(12))]);
      const url = viewURL("/tables/t", entries);
      const expected = new Map();
      for (const [key, value] of entries) if (value.trim() !== "") expected.set(key, value);
      if (expected.get("preset")) expected.delete("sort");
      if (expected.get("size") === "25") expected.delete("size");
      const query = url.includes("?") ? url.slice(url.indexOf("?") + 1) : "";
      const parsed = new Map(new URLSearchParams(query));
      assert.deepEqual(parsed, expected, "URL " + url);
      assert.ok(!/[\s"<>]/.test(url), "nothing that ends an attribute or a URL: " + url);
    }
  });
});

test("a megabyte value is encoded whole", () => {
  const value = "é".repeat(1 << 20);
  const url = viewURL("/t", [["q", value]]);
  assert.equal(new URLSearchParams(url.slice(3)).get("q"), value);
});

test("the saved view is the query without the page number", () => {
  assert.equal(savedQuery("?sort=title&page=3&q=x"), "sort=title&q=x");
  assert.equal(savedQuery("?page=2"), "");
  assert.equal(savedQuery(""), "");
  assert.equal(savedQuery("?pager=1&&q=a"), "pager=1&q=a");
});
