// Where the page keeps state in the browser: one spelling per kind, "sortkit.<kind>.<table>".
// Saved views and column layouts live in localStorage (kept across visits); the selection in
// sessionStorage (kept across reloads of one tab). Pure: the storage is passed in, so node's
// tests run these with a Map-backed stand-in.

/**
 * The browser's `localStorage` or `sessionStorage` (`name`), or, where the browser denies site
 * storage (reading the property throws), a stand-in that keeps nothing: the page works, it just
 * doesn't remember.
 */
export function browserStorage(name) {
  try {
    const storage = globalThis[name];
    if (storage) return storage;
  } catch (e) { /* site storage denied */ }
  return { getItem: () => null, setItem() {}, removeItem() {} };
}

/** The storage key of `kind` ("view", "columns", "selection", "all") for `table`. */
export function storageKey(kind, table) {
  return "sortkit." + kind + "." + table;
}

/** The JSON stored under `key`, or `fallback` when there is none, it is unreadable or storage is off. */
export function readJSON(storage, key, fallback) {
  try {
    const text = storage.getItem(key);
    if (text == null) return fallback;
    const value = JSON.parse(text);
    return value == null ? fallback : value;
  } catch (e) {
    return fallback;
  }
}

/** Stores `value` as JSON; a full or switched-off storage is not an error (the page works without it). */
export function writeJSON(storage, key, value) {
  try { storage.setItem(key, JSON.stringify(value)); } catch (e) { /* storage off or full */ }
}

/** Forgets everything kept for `table` in `storage`. */
export function forgetTable(storage, table, kinds) {
  for (const kind of kinds) {
    try { storage.removeItem(storageKey(kind, table)); } catch (e) { /* storage off */ }
  }
}
