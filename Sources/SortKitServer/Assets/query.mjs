// The view's query string as the page builds it from its controls, with the defaults left
// out as in the server's own links (ViewQuery.url): sort specs keep , : and |
// readable. Spaces are + (form encoding; the server reads + and %20 alike). Pure: no DOM.

/** Percent-encodes a query value, keeping , : | readable and spaces as +. */
export function encodeValue(text) {
  return encodeURIComponent(text).replace(/%2C/g, ",").replace(/%3A/g, ":").replace(/%7C/g, "|").replace(/%20/g, "+");
}

/** Encodes a query key; a column filter's key (`filter[name]`) keeps its brackets and encodes the name. */
export function encodeKey(key) {
  return key.startsWith("filter[") && key.endsWith("]") ? "filter[" + encodeValue(key.slice(7, -1)) + "]" : encodeValue(key);
}

/**
 * The URL a form's controls ask for: `entries` are the form's [name, value] pairs in order,
 * `changes` override them. Blank values are left out, a preset replaces the sort, and the
 * default page size (25) is not spelled.
 *
 *     viewURL("/tables/books", [["q", "tolkien"], ["size", "25"]], { page: "" })
 *     // "/tables/books?q=tolkien"
 */
export function viewURL(action, entries, changes = {}) {
  // As FormData.set: a change takes its name's first place and drops the name's other entries.
  const all = [];
  for (const [key, value] of entries) {
    if (!(key in changes)) all.push([key, value]);
    else if (!all.some(([other]) => other === key)) all.push([key, changes[key]]);
  }
  for (const [key, value] of Object.entries(changes)) if (!all.some(([other]) => other === key)) all.push([key, value]);
  const params = new Map();
  for (const [key, value] of all) if (typeof value === "string" && value.trim() !== "") params.set(key, value);
  if (params.get("preset")) params.delete("sort");
  if (params.get("size") === "25") params.delete("size");
  const query = [...params].map(([key, value]) => encodeKey(key) + "=" + encodeValue(value)).join("&");
  return action + (query ? "?" + query : "");
}

/** The view part of a location's search (everything but the page number), as it is saved per table. */
export function savedQuery(search) {
  return search.replace(/^\?/, "").split("&").filter((part) => part && !part.startsWith("page=")).join("&");
}
