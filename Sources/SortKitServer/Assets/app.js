// SortKit's web app: enhances the server-rendered page. Without this script every link and
// form still works (full page loads); with it, the view is swapped in place.
"use strict";
(function () {
  document.documentElement.classList.add("js");
  const view = () => document.getElementById("view");
  let searchTimer = null;

  function status(message, isError) {
    const element = document.getElementById("status");
    if (!element) return;
    element.textContent = message || "";
    element.classList.toggle("error", !!isError);
  }

  // Loads a page URL and swaps its view in; keeps the URL in sync so reloads and shared links
  // show the same view.
  async function load(url, { push = true, focusId = null, focusColumn = null } = {}) {
    const response = await fetch(url, { headers: { Accept: "text/html" } });
    const html = await response.text();
    const next = new DOMParser().parseFromString(html, "text/html").getElementById("view");
    if (!next) { status("Could not load the view (" + response.status + ")", true); return; }
    // Typing in the search or a column filter goes on in the new view.
    const active = document.activeElement;
    const typing = active && active.tagName === "INPUT" && (active.name === "q" || active.classList.contains("filter")) ? active.name : null;
    const caret = typing ? active.selectionStart : null;
    view().replaceWith(next);
    applyColumns();
    showSelection();
    if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
    if (typing) {
      const input = [...view().querySelectorAll("input[name]")].find((element) => element.name === typing);
      if (input) { input.focus(); input.setSelectionRange(caret, caret); }
    }
    if (focusId != null) {
      const row = view().querySelector(`tr[data-id="${focusId}"]`);
      if (row) { row.focus(); makeCurrent(row); }
    }
    if (focusColumn != null) {
      // A header sort keeps the keyboard on the header and says what the sort is now.
      const link = [...view().querySelectorAll("th[data-column] a")].find((a) => a.closest("th").dataset.column === focusColumn);
      if (link) link.focus();
      announce(sortDescription());
    }
    saveView();
  }

  // Column layout per table, kept in the browser with the saved view: hidden columns, their
  // order, widths, and how many leading columns stay put when the table scrolls sideways.
  const layoutKey = (table) => "sortkit.columns." + table;
  function columnLayout() {
    const main = view();
    let layout = null;
    try { layout = JSON.parse(localStorage.getItem(layoutKey(main.dataset.table)) || "null"); } catch (e) { /* none */ }
    return Object.assign({ hidden: [], order: [], widths: {}, frozen: 0, rtl: false }, layout || {});
  }
  function saveLayout(layout) {
    try { localStorage.setItem(layoutKey(view().dataset.table), JSON.stringify(layout)); } catch (e) { /* storage off */ }
    applyColumns();
  }
  function columnNames() {
    return [...view().querySelectorAll("thead tr:first-child th[data-column]")].map((th) => th.dataset.column);
  }
  function applyColumns() {
    const main = view();
    if (!main || !main.dataset.table || !main.querySelector("table.grid")) return;
    const layout = columnLayout();
    const names = columnNames();
    // Saved order first (columns that still exist), then any new ones in table order.
    const order = layout.order.filter((name) => names.includes(name)).concat(names.filter((name) => !layout.order.includes(name)));
    for (const row of main.querySelectorAll("table.grid tr")) {
      const cells = [...row.children].filter((cell) => cell.dataset.column != null);
      if (cells.length === 0 || cells.every((cell, index) => cell.dataset.column === order[index])) continue;
      const after = cells[cells.length - 1].nextSibling;
      for (const name of order) {
        const cell = cells.find((c) => c.dataset.column === name);
        if (cell) row.insertBefore(cell, after);
      }
    }
    // At phone width (app.css) only the first shown column and the sorted ones stay: "keep".
    const sorted = [...main.querySelectorAll("thead th.sorted[data-column]")].map((th) => th.dataset.column);
    const kept = new Set(sorted.concat(order.filter((name) => !layout.hidden.includes(name)).slice(0, 1)));
    for (const detail of main.querySelectorAll("table.grid tr.detail")) detail.remove();
    for (const cell of main.querySelectorAll("table.grid [data-column]")) {
      cell.classList.toggle("keep", kept.has(cell.dataset.column));
      cell.classList.toggle("col-hidden", layout.hidden.includes(cell.dataset.column));
      const width = layout.widths[cell.dataset.column];
      cell.style.width = width ? width + "px" : "";
      cell.style.maxWidth = width ? width + "px" : "";
      cell.style.minWidth = width ? width + "px" : "";
      cell.classList.remove("frozen");
      cell.style.left = "";
    }
    const scroller = main.querySelector(".scroll");
    if (layout.rtl) scroller.setAttribute("dir", "rtl"); else scroller.removeAttribute("dir");
    const edge = layout.rtl ? "right" : "left";
    for (const cell of main.querySelectorAll("table.grid th, table.grid td")) { cell.style.left = ""; cell.style.right = ""; }
    // Frozen: the selection column and the first N shown data columns stick to the leading edge.
    const shown = order.filter((name) => !layout.hidden.includes(name)).slice(0, Number(layout.frozen) || 0);
    if (shown.length > 0) {
      for (const row of main.querySelectorAll("table.grid tr")) {
        let left = 0;
        for (const cell of row.children) {
          const sticky = !cell.dataset.column ? cell.classList.contains("select") || cell.classList.contains("select-col") || cell === row.children[0]
            : shown.includes(cell.dataset.column);
          if (!sticky) { if (cell.dataset.column) break; continue; }
          cell.classList.add("frozen");
          cell.style[edge] = left + "px";
          left += cell.getBoundingClientRect().width;
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

  document.addEventListener("change", (event) => {
    const target = event.target;
    if (!target.closest || !target.closest(".columns-menu")) return;
    const layout = columnLayout();
    if (target.dataset.toggleColumn != null) {
      const name = target.dataset.toggleColumn;
      layout.hidden = layout.hidden.filter((n) => n !== name);
      if (!target.checked) layout.hidden.push(name);
      if (layout.hidden.length >= columnNames().length) { target.checked = true; layout.hidden.pop(); status("One column stays shown", true); }
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
    if (button.classList.contains("columns-reset")) {
      saveLayout({ hidden: [], order: [], widths: layout.widths, frozen: 0, rtl: layout.rtl });
      return;
    }
    const name = button.closest("li").dataset.column;
    const order = layout.order.filter((n) => columnNames().includes(n));
    for (const n of columnNames()) if (!order.includes(n)) order.push(n);
    const index = order.indexOf(name), to = index + Number(button.dataset.move);
    if (to < 0 || to >= order.length) return;
    order.splice(index, 1);
    order.splice(to, 0, name);
    layout.order = order;
    saveLayout(layout);
    const again = [...view().querySelectorAll(".columns-menu li")].find((li) => li.dataset.column === name);
    if (again) again.querySelector(`button[data-move="${button.dataset.move}"]`).focus();
  });

  // Resizing: drag a header's right edge; the width is kept.
  document.addEventListener("pointerdown", (event) => {
    const handle = event.target.closest && event.target.closest("th .resizer");
    if (!handle) return;
    event.preventDefault();
    const th = handle.closest("th");
    const start = event.clientX, width = th.getBoundingClientRect().width;
    const move = (e) => {
      const next = Math.max(40, Math.round(width + e.clientX - start));
      th.style.width = th.style.minWidth = th.style.maxWidth = next + "px";
    };
    const up = (e) => {
      document.removeEventListener("pointermove", move);
      document.removeEventListener("pointerup", up);
      const layout = columnLayout();
      layout.widths[th.dataset.column] = Math.max(40, Math.round(width + e.clientX - start));
      saveLayout(layout);
    };
    document.addEventListener("pointermove", move);
    document.addEventListener("pointerup", up);
  });

  // A live region outside the swapped view, so screen readers hear each change.
  function announce(message) {
    const element = document.getElementById("announce");
    if (element) element.textContent = message;
  }

  // "Sorted by title ascending, then price descending", from the headers' aria-sort and
  // priority numbers.
  function sortDescription() {
    const keys = [...view().querySelectorAll("th[aria-sort]")]
      .filter((th) => th.getAttribute("aria-sort") !== "none")
      .map((th) => ({ column: th.dataset.column, direction: th.getAttribute("aria-sort"),
        priority: Number((th.querySelector(".ind") || {}).textContent.replace(/[^0-9]/g, "")) || 1 }))
      .sort((a, b) => a.priority - b.priority);
    if (keys.length === 0) return "Not sorted";
    return "Sorted by " + keys.map((k) => k.column + " " + k.direction).join(", then ");
  }

  // The view (sort, preset, search, page size; not the page number) per table, kept across
  // reloads and visits, as DataTables' stateSave.
  const savedKey = (table) => "sortkit.view." + table;
  function saveView() {
    const main = view();
    if (!main || !main.dataset.table) return;
    // The query as the server spells it (sort specs readable), without the page number.
    const query = location.search.replace(/^\?/, "").split("&").filter((part) => part && !part.startsWith("page=")).join("&");
    try { localStorage.setItem(savedKey(main.dataset.table), query); } catch (e) { /* storage off */ }
  }
  function savedView(table) {
    try { return localStorage.getItem(savedKey(table)); } catch (e) { return null; }
  }

  function formURL(form, changes) {
    const data = new FormData(form);
    for (const [key, value] of Object.entries(changes || {})) data.set(key, value);
    const params = new Map();
    for (const [key, value] of data) if (value.trim() !== "") params.set(key, value);
    if (params.get("preset")) params.delete("sort");
    if (params.get("size") === "25") params.delete("size");
    // The same spelling as the server's links: sort specs keep , : and | readable.
    const encode = (text) => encodeURIComponent(text).replace(/%2C/g, ",").replace(/%3A/g, ":")
      .replace(/%7C/g, "|").replace(/%20/g, "+");
    // A column filter's key names its column: encoded inside the brackets, as the server does.
    const encodeKey = (key) => key.startsWith("filter[") && key.endsWith("]") ? "filter[" + encode(key.slice(7, -1)) + "]" : encode(key);
    const query = [...params].map(([key, value]) => encodeKey(key) + "=" + encode(value)).join("&");
    return form.getAttribute("action") + (query ? "?" + query : "");
  }

  function currentURL() { return location.pathname + location.search; }

  async function send(method, url, body) {
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

  const api = (path) => "/api/tables/" + encodeURIComponent(view().dataset.table) + path;

  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-nav]");
    if (link && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      if (link.classList.contains("reset")) {
        try {
          localStorage.removeItem(savedKey(view().dataset.table));
          localStorage.removeItem(layoutKey(view().dataset.table));
        } catch (e) { /* storage off */ }
      }
      const th = link.closest("th[data-column]");
      load(event.shiftKey && link.dataset.addHref ? link.dataset.addHref : link.getAttribute("href"),
        { focusColumn: th ? th.dataset.column : null });
      return;
    }
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
    if (box) {
      const id = Number(box.closest("tr").dataset.id);
      if (event.shiftKey && anchorId != null) selectRange(anchorId, id); else toggle(id);
      return;
    }
    const all = event.target.closest("input.select-all");
    if (all) { all.checked ? selectAllMatching(all) : deselectAllMatching(); return; }
    if (event.target.closest("button.bulk-clear")) { clearSelection(); return; }
    if (event.target.closest("button.bulk-delete")) { deleteSelected(); return; }
    const more = event.target.closest("button.more");
    if (more) { toggleDetail(more.closest("tr"), more); return; }
    const here = event.target.closest("button.move-here");
    if (here) { moveSelected({ after: Number(here.closest("tr").dataset.id) }); return; }
    const row = event.target.closest("tbody tr[data-id]");
    if (row) makeCurrent(row);
  });

  // A row's detail at phone width: the columns its width hides (but not those the user hid),
  // as a list under the row, as DataTables' Responsive extension shows them. Built with
  // textContent, never markup.
  function toggleDetail(row, button) {
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

  // The row before or after `row`, skipping detail rows.
  function rowBeside(row, step) {
    let other = step < 0 ? row.previousElementSibling : row.nextElementSibling;
    while (other && !other.dataset.id) other = step < 0 ? other.previousElementSibling : other.nextElementSibling;
    return other;
  }

  // The current row: Enter edits it, Alt+↑/↓ moves it in My order, Space selects it.
  function makeCurrent(row) {
    view().querySelectorAll("tr.current").forEach((r) => r.classList.remove("current"));
    row.classList.add("current");
  }

  // Selection: row ids, kept per table across sorts, searches, pages and reloads (session
  // storage), as the server's rows are identified by id, never by position.
  let anchorId = null, anchorTable = null;
  const tableName = () => (view() ? view().dataset.table || "" : "");
  const storageKey = (table = tableName()) => "sortkit-selection:" + table;
  const allKey = (table = tableName()) => "sortkit-all:" + table;
  function read(key, fallback) {
    try { return JSON.parse(sessionStorage.getItem(key)) || fallback; } catch (e) { return fallback; }
  }
  function selection(table) { return new Set(read(storageKey(table), [])); }
  function saveSelection(ids, table = tableName()) {
    sessionStorage.setItem(storageKey(table), JSON.stringify([...ids]));
    if (table === tableName()) showSelection();
  }
  // Rows that are gone (deleted here or elsewhere) leave the selection.
  function forget(gone) {
    const ids = selection();
    gone.forEach((id) => ids.delete(id));
    saveSelection(ids);
  }
  function toggle(id) {
    const ids = selection();
    if (ids.has(id)) ids.delete(id); else ids.add(id);
    anchorId = id; anchorTable = tableName();
    saveSelection(ids);
  }
  // Shift-click: every row from the anchor to this one, in the order shown.
  function selectRange(from, to) {
    if (anchorTable !== tableName()) { toggle(to); return; }
    const shown = [...view().querySelectorAll("tbody tr[data-id]")].map((r) => Number(r.dataset.id));
    const a = shown.indexOf(from), b = shown.indexOf(to);
    if (a < 0) { toggle(to); return; }
    const ids = selection();
    shown.slice(Math.min(a, b), Math.max(a, b) + 1).forEach((id) => ids.add(id));
    saveSelection(ids);
  }
  function clearSelection() { anchorId = null; sessionStorage.removeItem(allKey()); saveSelection(new Set()); }
  const currentSearch = () => new URLSearchParams(location.search).get("q") || "";
  // The header checkbox: every row the search matches, on every page, read from the API. The
  // ids it added are kept beside the search, so the box shows "all" only while they are all
  // still selected for the same search, and unchecking it removes just them.
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
    const ids = selection(table);
    matching.forEach((id) => ids.add(id));
    sessionStorage.setItem(allKey(table), JSON.stringify({ q, ids: matching }));
    saveSelection(ids, table);
    if (table === tableName()) status("Selected " + matching.length + " matching row" + (matching.length === 1 ? "" : "s"));
  }
  function allMatching() {
    const all = read(allKey(), null);
    if (!all || all.q !== currentSearch()) return null;
    const ids = selection();
    return all.ids.every((id) => ids.has(id)) ? all.ids : null;
  }
  function deselectAllMatching() {
    const matching = allMatching();
    if (!matching) { clearSelection(); return; }
    sessionStorage.removeItem(allKey());
    forget(matching);
  }
  // Marks the shown rows, the header checkbox and the bulk bar from the stored selection.
  function showSelection() {
    if (!view() || !view().dataset.table) return;
    const ids = selection();
    let shownSelected = 0, shown = 0;
    view().querySelectorAll("tbody tr[data-id]").forEach((row) => {
      const on = ids.has(Number(row.dataset.id));
      shown += 1; if (on) shownSelected += 1;
      row.classList.toggle("selected", on);
      row.setAttribute("aria-selected", String(on));
      const box = row.querySelector("input.select-row");
      if (box) box.checked = on;
    });
    const all = view().querySelector("input.select-all");
    if (all) {
      all.checked = shown > 0 && allMatching() !== null;
      all.indeterminate = !all.checked && ids.size > 0;
    }
    const bar = view().querySelector(".bulk");
    if (bar) {
      bar.hidden = ids.size === 0;
      bar.querySelector(".selected-count").textContent = ids.size + " selected";
    }
    view().classList.toggle("has-selection", ids.size > 0);
  }
  // A bulk request failed on a row that is gone (deleted in another tab, say): nothing was
  // changed; the row leaves the selection so that the next try can succeed.
  function goneRow(error) {
    const match = /has no row (-?\d+)$/.exec(error.message);
    if (!match) { status(error.message, true); return; }
    forget([Number(match[1])]);
    status("Row " + match[1] + " no longer exists and left the selection; nothing was changed, try again", true);
  }
  async function deleteSelected() {
    const ids = [...selection()];
    if (ids.length === 0 || !confirm("Delete " + ids.length + " selected row" + (ids.length === 1 ? "" : "s") + "?")) return;
    try {
      await send("POST", api("/rows/delete"), { ids });
      anchorId = null;
      sessionStorage.removeItem(allKey());
      saveSelection(new Set());
      await load(currentURL(), { push: false });
      status("Deleted " + ids.length + " row" + (ids.length === 1 ? "" : "s"));
    } catch (error) { goneRow(error); }
  }
  // My order: the selection moves as one block, in the order its rows have now.
  async function moveSelected(destination) {
    const ids = [...selection()].filter((id) => id !== destination.after && id !== destination.before);
    if (ids.length === 0) return;
    try {
      await send("POST", api("/rows/move"), { ids, keepOrder: true, ...destination });
      await load(currentURL(), { push: false });
      status("Moved " + ids.length + " row" + (ids.length === 1 ? "" : "s"));
    } catch (error) { goneRow(error); }
  }

  document.addEventListener("input", (event) => {
    const target = event.target;
    if ((target.name !== "q" && !(target.classList && target.classList.contains("filter"))) || !target.form) return;
    clearTimeout(searchTimer);
    const form = event.target.form;
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

  // The start page: Delete removes a table after a confirmation that names it.
  document.addEventListener("click", async (event) => {
    const button = event.target.closest && event.target.closest("button.delete-table");
    if (!button) return;
    const name = button.closest("li").dataset.table;
    if (!confirm("Delete the table \u201c" + name + "\u201d and all its rows? This can't be undone.")) return;
    try {
      await send("DELETE", "/api/tables/" + encodeURIComponent(name));
      try {
        localStorage.removeItem(savedKey(name));
        localStorage.removeItem(layoutKey(name));
      } catch (e) { /* storage off */ }
      button.closest("li").remove();
      status("Deleted table " + name);
    } catch (error) { status(error.message, true); }
  });

  // Import a CSV file as a new table: the name defaults to the file's stem.
  document.addEventListener("change", (event) => {
    if (event.target.name !== "file" || !event.target.form || event.target.form.id !== "import-csv") return;
    const name = event.target.form.querySelector("input[name=name]");
    const file = event.target.files[0];
    if (file && !name.value) name.value = file.name.replace(/\.(csv|tsv|txt)$/i, "");
  });
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (form.id !== "import-csv") return;
    event.preventDefault();
    const file = form.querySelector("input[name=file]").files[0];
    const name = form.querySelector("input[name=name]").value.trim();
    if (!file || !name) { status("Choose a CSV file and name the table", true); return; }
    status("Importing " + file.name + "…");
    const delimiter = /\.tsv$/i.test(file.name) ? "&delimiter=tab" : "";
    try {
      const response = await fetch("/api/tables?name=" + encodeURIComponent(name) + delimiter, {
        method: "POST", headers: { "Content-Type": "text/csv" }, body: await file.arrayBuffer(),
      });
      const reply = await response.json().catch(() => ({}));
      if (!response.ok) { status(reply.error || (response.status + " " + response.statusText), true); return; }
      status("Imported " + reply.rows + " rows as " + reply.name);
      location.href = reply.url;
    } catch (error) { status(error.message, true); }
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.classList.contains("controls")) {
      event.preventDefault();
      load(formURL(form, { page: "" }));
    } else if (form.id === "add-row") {
      event.preventDefault();
      const values = {};
      for (const [key, value] of new FormData(form)) values[key] = value;
      send("POST", api("/rows"), values)
        .then((row) => load(currentURL(), { push: false }).then(() => status("Added row " + row.id)))
        .catch((error) => status(error.message, true));
    }
  });

  // Inline edit: double-click a cell (or press Enter on a selected row's cell).
  document.addEventListener("dblclick", (event) => {
    const cell = event.target.closest("td.cell");
    if (cell && !cell.classList.contains("editing")) edit(cell);
  });

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

  // My order: keyboard moves (Alt+↑ / Alt+↓ on a selected row) and drag and drop.
  function move(id, destination, focusId) {
    return send("POST", api("/rows/" + id + "/move"), destination)
      .then(() => load(currentURL(), { push: false, focusId }))
      .then(() => status("Moved row " + id))
      .catch((error) => status(error.message, true));
  }

  // Shift+Enter on a focused header adds it as a sort key (a browser would open the link in a
  // new window); Enter alone is the link's click.
  document.addEventListener("keydown", (event) => {
    const link = event.target.closest && event.target.closest("th[data-column] a[data-nav]");
    if (!link || event.key !== "Enter" || !event.shiftKey) return;
    event.preventDefault();
    load(link.dataset.addHref || link.getAttribute("href"), { focusColumn: link.closest("th").dataset.column });
  });

  document.addEventListener("keydown", (event) => {
    const row = event.target.closest && event.target.closest("tbody tr[data-id]");
    if (!row || ["INPUT", "BUTTON", "A", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (event.key === " ") {
      event.preventDefault();
      makeCurrent(row);
      if (event.shiftKey && anchorId != null) selectRange(anchorId, Number(row.dataset.id)); else toggle(Number(row.dataset.id));
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

  let dragged = null;
  const clearMarks = () => view().querySelectorAll(".drop-before, .drop-after")
    .forEach((r) => r.classList.remove("drop-before", "drop-after"));
  document.addEventListener("dragstart", (event) => {
    const row = event.target.closest && event.target.closest("tr[draggable=true]");
    if (!row) return;
    dragged = row.dataset.id;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", dragged);
  });
  document.addEventListener("dragover", (event) => {
    const row = event.target.closest && event.target.closest("tr[draggable=true]");
    if (!row || dragged == null) return;
    event.preventDefault();
    clearMarks();
    const box = row.getBoundingClientRect();
    row.classList.add(event.clientY < box.top + box.height / 2 ? "drop-before" : "drop-after");
  });
  document.addEventListener("drop", (event) => {
    const row = event.target.closest && event.target.closest("tr[draggable=true]");
    if (!row || dragged == null) return;
    event.preventDefault();
    const before = row.classList.contains("drop-before");
    clearMarks();
    const id = dragged;
    dragged = null;
    if (row.dataset.id === id) return;
    const destination = before ? { before: Number(row.dataset.id) } : { after: Number(row.dataset.id) };
    // A selected row drags the whole selection with it.
    const ids = selection();
    if (ids.has(Number(id)) && ids.size > 1 && !ids.has(Number(row.dataset.id))) { moveSelected(destination); return; }
    move(id, destination, id);
  });
  document.addEventListener("dragend", () => { dragged = null; clearMarks(); });

  window.addEventListener("popstate", () => load(currentURL(), { push: false }));
  showSelection();
  // A table opened without a view in its URL comes back as it was left.
  const main = view();
  if (main && main.dataset.table) {
    const saved = savedView(main.dataset.table);
    if (!location.search && saved) load(location.pathname + "?" + saved, { push: false });
    else { saveView(); applyColumns(); }
  }
  window.sortkit = { load, status };
})();
