// The table's rows: the current row, selection (click, shift-click, Space, the header box, the
// bulk bar), inline edit, delete, add, and in My order the moves (Alt+↑/↓, drag and drop, ⤵).

import { toggleDetail } from "./columns.mjs";
import { counted, goneRowId } from "./describe.mjs";
import { afterSwap, api, currentURL, load, send, status, tableName, view } from "./page.mjs";
import { browserStorage } from "./keys.mjs";
import { Selection } from "./selection.mjs";

const selection = new Selection(browserStorage("sessionStorage"));
const currentSearch = () => new URLSearchParams(location.search).get("q") || "";
const shownIds = () => [...view().querySelectorAll("tbody tr[data-id]")].map((row) => Number(row.dataset.id));

/** The current row: Enter edits it, Alt+↑/↓ moves it in My order, Space selects it. */
function makeCurrent(row) {
  view().querySelectorAll("tr.current").forEach((other) => other.classList.remove("current"));
  row.classList.add("current");
}

/** The row before or after `row`, skipping detail rows. */
function rowBeside(row, step) {
  let other = step < 0 ? row.previousElementSibling : row.nextElementSibling;
  while (other && !other.dataset.id) other = step < 0 ? other.previousElementSibling : other.nextElementSibling;
  return other;
}

/** Marks the shown rows, the header checkbox and the bulk bar from the stored selection. */
export function showSelection() {
  const table = tableName();
  if (!table) return;
  const ids = selection.ids(table);
  let shown = 0;
  view().querySelectorAll("tbody tr[data-id]").forEach((row) => {
    const on = ids.has(Number(row.dataset.id));
    shown += 1;
    row.classList.toggle("selected", on);
    row.setAttribute("aria-selected", String(on));
    const box = row.querySelector("input.select-row");
    if (box) box.checked = on;
  });
  const all = view().querySelector("input.select-all");
  if (all) {
    all.checked = shown > 0 && selection.allMatching(table, currentSearch()) !== null;
    all.indeterminate = !all.checked && ids.size > 0;
  }
  const bar = view().querySelector(".bulk");
  if (bar) {
    bar.hidden = ids.size === 0;
    bar.querySelector(".selected-count").textContent = ids.size + " selected";
  }
  view().classList.toggle("has-selection", ids.size > 0);
}

function select(id, shift) {
  const table = tableName();
  if (shift && selection.hasAnchor()) selection.extend(table, shownIds(), id); else selection.toggle(table, id);
  showSelection();
}

/** Forgets rows that are gone and shows it. */
function forget(ids) {
  selection.forget(tableName(), ids);
  showSelection();
}

/** The header checkbox: every row the search matches, on every page, read from the API. */
async function selectAllMatching(box) {
  const count = Number(box.dataset.count);
  if (count > 100000) {
    box.checked = false;
    status(count + " rows match; narrow the search to select at most 100000", true);
    return;
  }
  const table = tableName(), q = currentSearch();
  const path = "/api/tables/" + encodeURIComponent(table) + "/rows";
  const matching = [];
  let after = null;
  try {
    do {
      const query = "?limit=1000" + (q ? "&q=" + encodeURIComponent(q) : "") + (after ? "&after=" + encodeURIComponent(after) : "");
      const page = await send("GET", path + query);
      page.rows.forEach((row) => matching.push(row.id));
      after = page.next;
    } while (after);
  } catch (error) { status(error.message, true); return; }
  selection.selectAll(table, q, matching);
  if (table === tableName()) { showSelection(); status("Selected " + counted(matching.length, "matching row")); }
}

/** A bulk request failed on a row that is gone (deleted in another tab): nothing changed; it leaves the selection. */
function goneRow(error) {
  const id = goneRowId(error.message);
  if (id == null) { status(error.message, true); return; }
  forget([id]);
  status("Row " + id + " no longer exists and left the selection; nothing was changed, try again", true);
}

async function deleteSelected() {
  const ids = [...selection.ids(tableName())];
  if (ids.length === 0 || !confirm("Delete " + counted(ids.length, "selected row") + "?")) return;
  try {
    await send("POST", api("/rows/delete"), { ids });
    selection.clear(tableName());
    showSelection();
    await load(currentURL(), { push: false });
    status("Deleted " + counted(ids.length, "row"));
  } catch (error) { goneRow(error); }
}

/** My order: the selection moves as one block, in the order its rows have now. */
async function moveSelected(destination) {
  const ids = [...selection.ids(tableName())].filter((id) => id !== destination.after && id !== destination.before);
  if (ids.length === 0) return;
  try {
    await send("POST", api("/rows/move"), { ids, keepOrder: true, ...destination });
    await load(currentURL(), { push: false });
    status("Moved " + counted(ids.length, "row"));
  } catch (error) { goneRow(error); }
}

function move(id, destination, focusId) {
  return send("POST", api("/rows/" + id + "/move"), destination)
    .then(() => load(currentURL(), { push: false, focusId }))
    .then(() => status("Moved row " + id))
    .catch((error) => status(error.message, true));
}

/** Inline edit: double-click a cell, or Enter on the current row. Enter saves, Escape cancels, leaving saves. */
function edit(cell) {
  const original = cell.textContent;
  const input = document.createElement("input");
  input.value = original;
  input.setAttribute("aria-label", "Edit " + cell.dataset.column);
  cell.textContent = "";
  cell.classList.add("editing");
  cell.appendChild(input);
  input.focus();
  input.select();
  let done = false;
  const finish = (save) => {
    if (done) return;
    done = true;
    if (!save || input.value === original) {
      cell.classList.remove("editing");
      cell.textContent = original;
      return;
    }
    const id = cell.closest("tr").dataset.id;
    send("PATCH", api("/rows/" + id), { [cell.dataset.column]: input.value })
      .then(() => load(currentURL(), { push: false, focusId: id }))
      .then(() => status("Saved row " + id))
      .catch((error) => { done = false; status(error.message, true); input.focus(); });
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); finish(true); }
    if (event.key === "Escape") { event.preventDefault(); done = false; finish(false); }
  });
  input.addEventListener("blur", () => finish(true));
}

document.addEventListener("click", (event) => {
  if (!event.target.closest) return;
  const remove = event.target.closest("button.delete");
  if (remove) {
    const row = remove.closest("tr");
    if (!confirm("Delete row " + row.dataset.id + "?")) return;
    send("DELETE", api("/rows/" + row.dataset.id))
      .then(() => forget([Number(row.dataset.id)]))
      .then(() => load(currentURL(), { push: false }))
      .then(() => status("Deleted row " + row.dataset.id))
      .catch((error) => status(error.message, true));
    return;
  }
  const box = event.target.closest("input.select-row");
  if (box) { select(Number(box.closest("tr").dataset.id), event.shiftKey); return; }
  const all = event.target.closest("input.select-all");
  if (all) {
    if (all.checked) selectAllMatching(all); else { selection.deselectAll(tableName(), currentSearch()); showSelection(); }
    return;
  }
  if (event.target.closest("button.bulk-clear")) { selection.clear(tableName()); showSelection(); return; }
  if (event.target.closest("button.bulk-delete")) { deleteSelected(); return; }
  const more = event.target.closest("button.more");
  if (more) { toggleDetail(more.closest("tr"), more); return; }
  const here = event.target.closest("button.move-here");
  if (here) { moveSelected({ after: Number(here.closest("tr").dataset.id) }); return; }
  const row = event.target.closest("tbody tr[data-id]");
  if (row) makeCurrent(row);
});

document.addEventListener("dblclick", (event) => {
  const cell = event.target.closest && event.target.closest("td.cell");
  if (cell && !cell.classList.contains("editing")) edit(cell);
});

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form.id !== "add-row") return;
  event.preventDefault();
  const values = {};
  for (const [key, value] of new FormData(form)) values[key] = value;
  send("POST", api("/rows"), values)
    .then((row) => load(currentURL(), { push: false }).then(() => status("Added row " + row.id)))
    .catch((error) => status(error.message, true));
});

document.addEventListener("keydown", (event) => {
  const row = event.target.closest && event.target.closest("tbody tr[data-id]");
  if (!row || ["INPUT", "BUTTON", "A", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
  if (event.key === " ") {
    event.preventDefault();
    makeCurrent(row);
    select(Number(row.dataset.id), event.shiftKey);
    return;
  }
  if (event.key === "Enter") {
    const cell = row.querySelector("td.cell");
    if (cell) { event.preventDefault(); edit(cell); }
    return;
  }
  if (view().dataset.manual !== "true" || !event.altKey) return;
  const before = rowBeside(row, -1), after = rowBeside(row, 1);
  if (event.key === "ArrowUp" && before) {
    event.preventDefault();
    move(row.dataset.id, { before: Number(before.dataset.id) }, row.dataset.id);
  } else if (event.key === "ArrowDown" && after) {
    event.preventDefault();
    move(row.dataset.id, { after: Number(after.dataset.id) }, row.dataset.id);
  }
});

// Drag and drop in My order; a selected row drags the whole selection with it.
let dragged = null;
const clearMarks = () => view().querySelectorAll(".drop-before, .drop-after").forEach((row) => row.classList.remove("drop-before", "drop-after"));
const draggable = (event) => event.target.closest && event.target.closest("tr[draggable=true]");
document.addEventListener("dragstart", (event) => {
  const row = draggable(event);
  if (!row) return;
  dragged = row.dataset.id;
  event.dataTransfer.effectAllowed = "move";
  event.dataTransfer.setData("text/plain", dragged);
});
document.addEventListener("dragover", (event) => {
  const row = draggable(event);
  if (!row || dragged == null) return;
  event.preventDefault();
  clearMarks();
  const box = row.getBoundingClientRect();
  row.classList.add(event.clientY < box.top + box.height / 2 ? "drop-before" : "drop-after");
});
document.addEventListener("drop", (event) => {
  const row = draggable(event);
  if (!row || dragged == null) return;
  event.preventDefault();
  const before = row.classList.contains("drop-before");
  clearMarks();
  const id = dragged;
  dragged = null;
  if (row.dataset.id === id) return;
  const destination = before ? { before: Number(row.dataset.id) } : { after: Number(row.dataset.id) };
  const ids = selection.ids(tableName());
  if (ids.has(Number(id)) && ids.size > 1 && !ids.has(Number(row.dataset.id))) { moveSelected(destination); return; }
  move(id, destination, id);
});
document.addEventListener("dragend", () => { dragged = null; clearMarks(); });

afterSwap(({ focusId }) => {
  showSelection();
  if (focusId != null) {
    const row = view().querySelector(`tr[data-id="${focusId}"]`);
    if (row) { row.focus(); makeCurrent(row); }
  }
});
