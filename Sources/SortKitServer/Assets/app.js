// SortKit's web app: enhances the server-rendered page. Without this script every link and
// form still works (full page loads); with it, the view is swapped in place.
"use strict";
(function () {
  document.documentElement.classList.add("js");
  const view = () => document.getElementById("view");
  let searchTimer = null;
  let selectedId = null;

  function status(message, isError) {
    const element = document.getElementById("status");
    if (!element) return;
    element.textContent = message || "";
    element.classList.toggle("error", !!isError);
  }

  // Loads a page URL and swaps its view in; keeps the URL in sync so reloads and shared links
  // show the same view.
  async function load(url, { push = true, focusId = null } = {}) {
    const response = await fetch(url, { headers: { Accept: "text/html" } });
    const html = await response.text();
    const next = new DOMParser().parseFromString(html, "text/html").getElementById("view");
    if (!next) { status("Could not load the view (" + response.status + ")", true); return; }
    const search = document.activeElement && document.activeElement.name === "q";
    const caret = search ? document.activeElement.selectionStart : null;
    view().replaceWith(next);
    if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
    if (search) {
      const input = view().querySelector("input[name=q]");
      input.focus(); input.setSelectionRange(caret, caret);
    }
    if (focusId != null) {
      const row = view().querySelector(`tr[data-id="${focusId}"]`);
      if (row) { row.focus(); select(row); }
    }
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
    const query = [...params].map(([key, value]) => key + "=" + encode(value)).join("&");
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
      load(event.shiftKey && link.dataset.addHref ? link.dataset.addHref : link.getAttribute("href"));
      return;
    }
    const remove = event.target.closest("button.delete");
    if (remove) {
      const row = remove.closest("tr");
      if (!confirm("Delete row " + row.dataset.id + "?")) return;
      send("DELETE", api("/rows/" + row.dataset.id))
        .then(() => load(currentURL(), { push: false }))
        .then(() => status("Deleted row " + row.dataset.id))
        .catch((error) => status(error.message, true));
      return;
    }
    const row = event.target.closest("tbody tr[data-id]");
    if (row) select(row);
  });

  function select(row) {
    view().querySelectorAll("tr.selected").forEach((r) => r.classList.remove("selected"));
    row.classList.add("selected");
    selectedId = row.dataset.id;
  }

  document.addEventListener("input", (event) => {
    if (event.target.name !== "q" || !event.target.form) return;
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

  document.addEventListener("keydown", (event) => {
    const row = event.target.closest && event.target.closest("tbody tr[data-id]");
    if (!row || event.target.tagName === "INPUT") return;
    if (event.key === "Enter") {
      const cell = row.querySelector("td.cell");
      if (cell) { event.preventDefault(); edit(cell); }
      return;
    }
    if (view().dataset.manual !== "true" || !event.altKey) return;
    if (event.key === "ArrowUp" && row.previousElementSibling) {
      event.preventDefault();
      move(row.dataset.id, { before: Number(row.previousElementSibling.dataset.id) }, row.dataset.id);
    } else if (event.key === "ArrowDown" && row.nextElementSibling) {
      event.preventDefault();
      move(row.dataset.id, { after: Number(row.nextElementSibling.dataset.id) }, row.dataset.id);
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
    move(id, before ? { before: Number(row.dataset.id) } : { after: Number(row.dataset.id) }, id);
  });
  document.addEventListener("dragend", () => { dragged = null; clearMarks(); });

  window.addEventListener("popstate", () => load(currentURL(), { push: false }));
  window.sortkit = { load, status };
})();
