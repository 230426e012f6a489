// The start page: import a CSV file as a new table (the name defaults to the file's stem), and
// delete a table after a confirmation that names it.

import { importURL, tableNameForFile } from "./describe.mjs";
import { browserStorage, forgetTable } from "./keys.mjs";
import { send, status } from "./page.mjs";

document.addEventListener("click", async (event) => {
  const button = event.target.closest && event.target.closest("button.delete-table");
  if (!button) return;
  const name = button.closest("li").dataset.table;
  if (!confirm("Delete the table \u201c" + name + "\u201d and all its rows? This can't be undone.")) return;
  try {
    await send("DELETE", "/api/tables/" + encodeURIComponent(name));
    forgetTable(browserStorage("localStorage"), name, ["view", "columns"]);
    button.closest("li").remove();
    status("Deleted table " + name);
  } catch (error) { status(error.message, true); }
});

document.addEventListener("change", (event) => {
  if (event.target.name !== "file" || !event.target.form || event.target.form.id !== "import-csv") return;
  const name = event.target.form.querySelector("input[name=name]");
  const file = event.target.files[0];
  if (file && !name.value) name.value = tableNameForFile(file.name);
});

document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (form.id !== "import-csv") return;
  event.preventDefault();
  const file = form.querySelector("input[name=file]").files[0];
  const name = form.querySelector("input[name=name]").value.trim();
  if (!file || !name) { status("Choose a CSV file and name the table", true); return; }
  status("Importing " + file.name + "…");
  try {
    const response = await fetch(importURL(name, file.name), {
      method: "POST", headers: { "Content-Type": "text/csv" }, body: await file.arrayBuffer(),
    });
    const reply = await response.json().catch(() => ({}));
    if (!response.ok) { status(reply.error || (response.status + " " + response.statusText), true); return; }
    status("Imported " + reply.rows + " rows as " + reply.name);
    location.href = reply.url;
  } catch (error) { status(error.message, true); }
});
