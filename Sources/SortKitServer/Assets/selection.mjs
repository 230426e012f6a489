// The selection: row ids per table, kept across sorts, searches, pages and reloads (session
// storage), because the server names rows by id, never by position. Beside it, the ids the
// header checkbox added for one search ("all matching"), so that box shows checked only while
// they are all still selected for that search. Pure: the storage is passed in.

import { forgetTable, readJSON, storageKey, writeJSON } from "./keys.mjs";

export class Selection {
  /** A selection kept in `storage` (sessionStorage in the page). */
  constructor(storage) {
    this.storage = storage;
    this.anchor = null; // { table, id } of the last row toggled: shift-click selects from there
  }

  /** The selected ids of `table`. */
  ids(table) {
    return new Set(readJSON(this.storage, storageKey("selection", table), []));
  }

  save(table, ids) {
    writeJSON(this.storage, storageKey("selection", table), [...ids]);
  }

  /** Rows that are gone (deleted here or elsewhere) leave the selection. */
  forget(table, gone) {
    const ids = this.ids(table);
    for (const id of gone) ids.delete(id);
    this.save(table, ids);
  }

  /** Selects or deselects one row, and makes it the anchor of the next range. */
  toggle(table, id) {
    const ids = this.ids(table);
    if (ids.has(id)) ids.delete(id); else ids.add(id);
    this.anchor = { table, id };
    this.save(table, ids);
  }

  /**
   * Shift-click: every row from the anchor to `id`, in the order shown (`shown` is the page's
   * ids top to bottom). Without an anchor on this page it is a plain toggle.
   */
  extend(table, shown, id) {
    const from = this.anchor && this.anchor.table === table ? shown.indexOf(this.anchor.id) : -1;
    if (from < 0) { this.toggle(table, id); return; }
    const to = shown.indexOf(id);
    if (to < 0) { this.toggle(table, id); return; }
    const ids = this.ids(table);
    for (const other of shown.slice(Math.min(from, to), Math.max(from, to) + 1)) ids.add(other);
    this.save(table, ids);
  }

  /** Whether shift-click should select a range (there is an anchor). */
  hasAnchor() {
    return this.anchor != null;
  }

  /** Empties the selection and forgets the anchor and "all matching". */
  clear(table) {
    this.anchor = null;
    forgetTable(this.storage, table, ["all"]);
    this.save(table, new Set());
  }

  /** Adds every id of a search's matches and remembers them as "all matching" for `search`. */
  selectAll(table, search, matching) {
    const ids = this.ids(table);
    for (const id of matching) ids.add(id);
    writeJSON(this.storage, storageKey("all", table), { q: search, ids: matching });
    this.save(table, ids);
  }

  /** The ids "all matching" added for `search`, while they are all still selected; else null. */
  allMatching(table, search) {
    const all = readJSON(this.storage, storageKey("all", table), null);
    if (!all || all.q !== search || !Array.isArray(all.ids)) return null;
    const ids = this.ids(table);
    return all.ids.every((id) => ids.has(id)) ? all.ids : null;
  }

  /** Unchecking the header box: removes just what it added, or everything when that is gone. */
  deselectAll(table, search) {
    const matching = this.allMatching(table, search);
    if (!matching) { this.clear(table); return; }
    forgetTable(this.storage, table, ["all"]);
    this.forget(table, matching);
  }
}
