// A table's column layout as the user left it: hidden columns, their order, widths, how many
// leading columns stay put when the table scrolls sideways, and the reading direction. Kept in
// the browser per table. Pure: these functions take the layout and the table's column names and
// return what to show; columns.mjs applies it to the DOM.

/** A layout with nothing changed. */
export function defaultLayout() {
  return { hidden: [], order: [], widths: {}, frozen: 0, rtl: false };
}

/** A stored layout completed with the defaults; anything that isn't an object is the default. */
export function completeLayout(stored) {
  const layout = Object.assign(defaultLayout(), stored && typeof stored === "object" && !Array.isArray(stored) ? stored : {});
  if (!Array.isArray(layout.hidden)) layout.hidden = [];
  if (!Array.isArray(layout.order)) layout.order = [];
  if (!layout.widths || typeof layout.widths !== "object") layout.widths = {};
  return layout;
}

/** The columns in shown order: the saved order (of columns that still exist), then new ones in table order. */
export function columnOrder(layout, names) {
  return layout.order.filter((name) => names.includes(name)).concat(names.filter((name) => !layout.order.includes(name)));
}

/** The columns that stay at phone width: the sorted ones and the first shown one. */
export function keptColumns(layout, order, sorted) {
  return new Set(sorted.concat(order.filter((name) => !layout.hidden.includes(name)).slice(0, 1)));
}

/** The shown columns frozen at the leading edge, in order. */
export function frozenColumns(layout, order) {
  return order.filter((name) => !layout.hidden.includes(name)).slice(0, Number(layout.frozen) || 0);
}

/**
 * Shows or hides `name`. One column always stays shown: hiding the last one is refused, and
 * the result says so.
 */
export function toggleColumn(layout, name, shown, names) {
  const next = { ...layout, hidden: layout.hidden.filter((other) => other !== name) };
  if (!shown) next.hidden.push(name);
  if (next.hidden.length >= names.length) { next.hidden.pop(); return { layout: next, refused: true }; }
  return { layout: next, refused: false };
}

/** Moves `name` by `step` places in the shown order; nil when it would leave the table. */
export function moveColumn(layout, names, name, step) {
  const order = columnOrder(layout, names);
  const index = order.indexOf(name), to = index + step;
  if (index < 0 || to < 0 || to >= order.length) return null;
  order.splice(index, 1);
  order.splice(to, 0, name);
  return { ...layout, order };
}

/** The layout after "Show all columns in order": widths and direction stay. */
export function resetLayout(layout) {
  return { ...defaultLayout(), widths: layout.widths, rtl: layout.rtl };
}

/** The narrowest a column can be dragged, in CSS pixels. */
export const minimumWidth = 40;

/** The width a resize drag ends at. */
export function draggedWidth(start, startX, x) {
  return Math.max(minimumWidth, Math.round(start + x - startX));
}
