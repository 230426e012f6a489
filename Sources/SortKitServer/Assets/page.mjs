// The page's shared pieces: the view element, the status line, the live region, JSON requests,
// and `load`, which fetches a page URL and swaps its view in. Modules that decorate the view
// (columns, selection, focus) register with `afterSwap` and run after every swap.
// The markup these rely on is listed in CONTRACT.md beside this file.

import { sortDescription } from "./describe.mjs";

/** The table view (`main#view`), or null on the start page. */
export const view = () => document.getElementById("view");

/** The shown table's name, or "" on the start page. */
export const tableName = () => (view() ? view().dataset.table || "" : "");

/** Says `message` in the status line, styled as an error when `isError`. */
export function status(message, isError) {
  const element = document.getElementById("status");
  if (!element) return;
  element.textContent = message || "";
  element.classList.toggle("error", !!isError);
}

/** Says `message` in the live region outside the swapped view, so screen readers hear each change. */
export function announce(message) {
  const element = document.getElementById("announce");
  if (element) element.textContent = message;
}

/** The headers' sort in words, for the live region. */
export function describeSort() {
  return sortDescription([...view().querySelectorAll("th[aria-sort][data-column]")].map((th) => ({
    column: th.dataset.column, direction: th.getAttribute("aria-sort"),
    indicator: (th.querySelector(".ind") || {}).textContent,
  })));
}

export const currentURL = () => location.pathname + location.search;

/** A path of the shown table's API: api("/rows") is "/api/tables/<table>/rows". */
export const api = (path) => "/api/tables/" + encodeURIComponent(tableName()) + path;

/** Sends a JSON request; a failure throws an Error carrying the server's message. */
export async function send(method, url, body) {
  const response = await fetch(url, {
    method, headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return response.status === 204 ? null : response.json();
}

const swapHooks = [];

/** Runs `hook(options)` after each swap (and once at start): options are load's. */
export function afterSwap(hook) {
  swapHooks.push(hook);
}

/** Runs the swap hooks on the view the server rendered. */
export function decorate(options = {}) {
  if (view()) for (const hook of swapHooks) hook(options);
}

/**
 * Loads a page URL and swaps its view in; keeps the URL in sync so reloads and shared links
 * show the same view. `focusId` puts the keyboard on a row, `focusColumn` on a header (and
 * says the new sort).
 */
export async function load(url, { push = true, focusId = null, focusColumn = null } = {}) {
  const response = await fetch(url, { headers: { Accept: "text/html" } });
  const html = await response.text();
  const next = new DOMParser().parseFromString(html, "text/html").getElementById("view");
  if (!next) { status("Could not load the view (" + response.status + ")", true); return; }
  // Typing in the search or a column filter goes on in the new view.
  const active = document.activeElement;
  const typing = active && active.tagName === "INPUT" && (active.name === "q" || active.classList.contains("filter")) ? active.name : null;
  const caret = typing ? active.selectionStart : null;
  view().replaceWith(next);
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
  // Decorated first: putting the saved column order on the table moves cells, which would
  // take the focus from an input already focused in them.
  decorate({ focusId, focusColumn });
  if (typing) {
    const input = [...view().querySelectorAll("input[name]")].find((element) => element.name === typing);
    if (input) { input.focus(); input.setSelectionRange(caret, caret); }
  }
  if (focusColumn != null) {
    // A header sort keeps the keyboard on the header and says what the sort is now.
    const link = [...view().querySelectorAll("th[data-column] a")].find((a) => a.closest("th").dataset.column === focusColumn);
    if (link) link.focus();
    announce(describeSort());
  }
}
