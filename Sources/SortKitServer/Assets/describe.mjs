// What the page says in words: the sort for screen readers, counts, and the row a failed bulk
// request names. Pure: no DOM.

/**
 * "Sorted by title ascending, then price descending" from the headers' sort states.
 * `headers` are { column, direction (aria-sort), indicator (the text shown, "▲2") }.
 */
export function sortDescription(headers) {
  const keys = headers
    .filter((header) => header.direction && header.direction !== "none")
    .map((header) => ({ ...header, priority: Number(String(header.indicator || "").replace(/[^0-9]/g, "")) || 1 }))
    .sort((a, b) => a.priority - b.priority);
  if (keys.length === 0) return "Not sorted";
  return "Sorted by " + keys.map((key) => key.column + " " + key.direction).join(", then ");
}

/** A count with its noun: counted(1, "row") is "1 row", counted(3, "selected row") "3 selected rows". */
export function counted(count, noun) {
  return count + " " + noun + (count === 1 ? "" : "s");
}

/** The row id in the server's "… has no row 42" error, or null. */
export function goneRowId(message) {
  const match = /has no row (-?\d+)$/.exec(message);
  return match ? Number(match[1]) : null;
}

/** The table name an imported file suggests: its name without .csv, .tsv or .txt. */
export function tableNameForFile(fileName) {
  return fileName.replace(/\.(csv|tsv|txt)$/i, "");
}

/** The import URL for a file: tab-separated when the file is a .tsv. */
export function importURL(name, fileName) {
  return "/api/tables?name=" + encodeURIComponent(name) + (/\.tsv$/i.test(fileName) ? "&delimiter=tab" : "");
}
