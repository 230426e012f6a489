// The column layout on the table page: the Columns menu (show, hide, move, freeze, direction),
// resizing by a header's edge, and phone width (only the first shown column and the sorted ones
// stay; the rest open in a row's detail). The layout itself is computed in layout.mjs.

import { columnOrder, completeLayout, draggedWidth, frozenColumns, keptColumns, moveColumn, resetLayout, toggleColumn }
  from "./layout.mjs";
import { browserStorage, readJSON, storageKey, writeJSON } from "./keys.mjs";
import { afterSwap, status, tableName, view } from "./page.mjs";

/** The shown table's layout as stored. */
export function columnLayout() {
  return completeLayout(readJSON(browserStorage("localStorage"), storageKey("columns", tableName()), null));
}

function saveLayout(layout) {
  writeJSON(browserStorage("localStorage"), storageKey("columns", tableName()), layout);
  applyColumns();
}

const columnNames = () => [...view().querySelectorAll("thead tr:first-child th[data-column]")].map((th) => th.dataset.column);

/** Puts the stored layout on the table: cell order, hidden, kept, widths, frozen, direction. */
export function applyColumns() {
  const main = view();
  if (!main || !main.dataset.table || !main.querySelector("table.grid")) return;
  const layout = columnLayout();
  const order = columnOrder(layout, columnNames());
  for (const row of main.querySelectorAll("table.grid tr")) {
    const cells = [...row.children].filter((cell) => cell.dataset.column != null);
    if (cells.length === 0 || cells.every((cell, index) => cell.dataset.column === order[index])) continue;
    const after = cells[cells.length - 1].nextSibling;
    for (const name of order) {
      const cell = cells.find((c) => c.dataset.column === name);
      if (cell) row.insertBefore(cell, after);
    }
  }
  // At phone width (app.css) only the cells marked "keep" show.
  const sorted = [...main.querySelectorAll("thead th.sorted[data-column]")].map((th) => th.dataset.column);
  const kept = keptColumns(layout, order, sorted);
  for (const detail of main.querySelectorAll("table.grid tr.detail")) detail.remove();
  for (const cell of main.querySelectorAll("table.grid [data-column]")) {
    cell.classList.toggle("keep", kept.has(cell.dataset.column));
    cell.classList.toggle("col-hidden", layout.hidden.includes(cell.dataset.column));
    const width = layout.widths[cell.dataset.column];
    cell.style.width = cell.style.maxWidth = cell.style.minWidth = width ? width + "px" : "";
    cell.classList.remove("frozen");
  }
  const scroller = main.querySelector(".scroll");
  if (layout.rtl) scroller.setAttribute("dir", "rtl"); else scroller.removeAttribute("dir");
  const edge = layout.rtl ? "right" : "left";
  for (const cell of main.querySelectorAll("table.grid th, table.grid td")) { cell.style.left = ""; cell.style.right = ""; }
  // Frozen: the selection column and the first N shown data columns stick to the leading edge.
  const frozen = frozenColumns(layout, order);
  if (frozen.length > 0) {
    for (const row of main.querySelectorAll("table.grid tr")) {
      let offset = 0;
      for (const cell of row.children) {
        const sticky = !cell.dataset.column
          ? cell.classList.contains("select") || cell.classList.contains("select-col") || cell === row.children[0]
          : frozen.includes(cell.dataset.column);
        if (!sticky) { if (cell.dataset.column) break; continue; }
        cell.classList.add("frozen");
        cell.style[edge] = offset + "px";
        offset += cell.getBoundingClientRect().width;
      }
    }
  }
  // The menu mirrors the layout.
  const menu = main.querySelector(".columns-menu");
  if (menu) {
    const list = menu.querySelector("ul");
    for (const name of order) {
      const item = [...list.children].find((li) => li.dataset.column === name);
      if (item) list.appendChild(item);
    }
    for (const box of menu.querySelectorAll("input[data-toggle-column]")) box.checked = !layout.hidden.includes(box.dataset.toggleColumn);
    menu.querySelector("select.freeze").value = String(layout.frozen || 0);
    menu.querySelector("input.rtl").checked = !!layout.rtl;
  }
}

/** A row's detail at phone width: the columns its width hides (not those the user hid), built with textContent. */
export function toggleDetail(row, button) {
  const next = row.nextElementSibling;
  if (next && next.classList.contains("detail")) {
    next.remove();
    button.setAttribute("aria-expanded", "false");
    return;
  }
  const list = document.createElement("dl");
  for (const cell of row.querySelectorAll("td[data-column]")) {
    if (cell.classList.contains("col-hidden") || getComputedStyle(cell).display !== "none") continue;
    const name = document.createElement("dt");
    name.textContent = cell.dataset.column;
    const value = document.createElement("dd");
    value.textContent = cell.textContent;
    list.append(name, value);
  }
  const detail = document.createElement("tr");
  detail.className = "detail";
  const cell = document.createElement("td");
  cell.colSpan = row.children.length;
  cell.append(list);
  detail.append(cell);
  row.after(detail);
  button.setAttribute("aria-expanded", "true");
}

document.addEventListener("change", (event) => {
  const target = event.target;
  if (!target.closest || !target.closest(".columns-menu")) return;
  let layout = columnLayout();
  if (target.dataset.toggleColumn != null) {
    const result = toggleColumn(layout, target.dataset.toggleColumn, target.checked, columnNames());
    layout = result.layout;
    if (result.refused) { target.checked = true; status("One column stays shown", true); }
  } else if (target.classList.contains("freeze")) {
    layout.frozen = Number(target.value);
  } else if (target.classList.contains("rtl")) {
    layout.rtl = target.checked;
  }
  saveLayout(layout);
});

document.addEventListener("click", (event) => {
  const button = event.target.closest && event.target.closest(".columns-menu button");
  if (!button) return;
  const layout = columnLayout();
  if (button.classList.contains("columns-reset")) { saveLayout(resetLayout(layout)); return; }
  const name = button.closest("li").dataset.column;
  const moved = moveColumn(layout, columnNames(), name, Number(button.dataset.move));
  if (!moved) return;
  saveLayout(moved);
  const again = [...view().querySelectorAll(".columns-menu li")].find((li) => li.dataset.column === name);
  if (again) again.querySelector(`button[data-move="${button.dataset.move}"]`).focus();
});

// Resizing: drag a header's right edge; the width is kept.
document.addEventListener("pointerdown", (event) => {
  const handle = event.target.closest && event.target.closest("th .resizer");
  if (!handle) return;
  event.preventDefault();
  const th = handle.closest("th");
  const startX = event.clientX, start = th.getBoundingClientRect().width;
  const move = (e) => { th.style.width = th.style.minWidth = th.style.maxWidth = draggedWidth(start, startX, e.clientX) + "px"; };
  const up = (e) => {
    document.removeEventListener("pointermove", move);
    document.removeEventListener("pointerup", up);
    const layout = columnLayout();
    layout.widths[th.dataset.column] = draggedWidth(start, startX, e.clientX);
    saveLayout(layout);
  };
  document.addEventListener("pointermove", move);
  document.addEventListener("pointerup", up);
});

afterSwap(applyColumns);
