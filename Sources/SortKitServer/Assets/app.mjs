// SortKit's web app: enhances the server-rendered page. Without it every link and form still
// works (full page loads); with it, the view is swapped in place. This entry module wires the
// view's controls (headers, pager, search, filters, preset, size) and the saved view; the other
// modules are listed in CONTRACT.md with the markup each one reads.

import "./columns.mjs";
import { browserStorage, forgetTable, storageKey } from "./keys.mjs";
import { afterSwap, currentURL, decorate, load, status, tableName, view } from "./page.mjs";
import { savedQuery, viewURL } from "./query.mjs";
import "./rows.mjs";
import "./start.mjs";

document.documentElement.classList.add("js");

/** The URL the view's controls ask for, with `changes` applied. */
const formURL = (form, changes) => viewURL(form.getAttribute("action"), new FormData(form), changes);

// The view (sort, preset, search, page size; not the page number) per table, kept across
// reloads and visits, as DataTables' stateSave.
function saveView() {
  if (!tableName()) return;
  try { browserStorage("localStorage").setItem(storageKey("view", tableName()), savedQuery(location.search)); } catch (e) { /* full */ }
}

function savedView(table) {
  try { return browserStorage("localStorage").getItem(storageKey("view", table)); } catch (e) { return null; }
}

// Header sorts, the pager and Reset load in place; shift-click on a header adds a sort key.
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("a[data-nav]");
  if (!link || event.ctrlKey || event.metaKey) return;
  event.preventDefault();
  if (link.classList.contains("reset")) forgetTable(browserStorage("localStorage"), tableName(), ["view", "columns"]);
  const th = link.closest("th[data-column]");
  load(event.shiftKey && link.dataset.addHref ? link.dataset.addHref : link.getAttribute("href"),
    { focusColumn: th ? th.dataset.column : null });
});

// Shift+Enter on a focused header adds it as a sort key (a browser would open the link in a
// new window); Enter alone is the link's click.
document.addEventListener("keydown", (event) => {
  const link = event.target.closest && event.target.closest("th[data-column] a[data-nav]");
  if (!link || event.key !== "Enter" || !event.shiftKey) return;
  event.preventDefault();
  load(link.dataset.addHref || link.getAttribute("href"), { focusColumn: link.closest("th").dataset.column });
});

// Search and column filters load as the user types (250 ms after the last key).
let searchTimer = null;
document.addEventListener("input", (event) => {
  const target = event.target;
  if ((target.name !== "q" && !(target.classList && target.classList.contains("filter"))) || !target.form) return;
  clearTimeout(searchTimer);
  const form = target.form;
  searchTimer = setTimeout(() => load(formURL(form, { page: "" }), { push: false }), 250);
});

document.addEventListener("change", (event) => {
  const form = event.target.form;
  if (!form || !form.classList.contains("controls")) return;
  if (event.target.name === "preset") {
    const hidden = form.querySelector("input[name=sort]");
    if (hidden) hidden.remove();
  }
  if (event.target.name === "preset" || event.target.name === "size") load(formURL(form, { page: "" }));
});

document.addEventListener("submit", (event) => {
  if (!event.target.classList.contains("controls")) return;
  event.preventDefault();
  load(formURL(event.target, { page: "" }));
});

window.addEventListener("popstate", () => load(currentURL(), { push: false }));
afterSwap(saveView);

// A table opened without a view in its URL comes back as it was left.
const saved = tableName() ? savedView(tableName()) : null;
if (view() && !location.search && saved) load(location.pathname + "?" + saved, { push: false });
else decorate();
window.sortkit = { load, status };
