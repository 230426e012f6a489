// The markup contract between the templates and the page's modules (Assets/CONTRACT.md): what a
// module looks for must be written by a template or by a module, and every data-* attribute is
// listed in the contract.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const assets = new URL("../../Sources/SortKitServer/Assets/", import.meta.url);
const templatesFolder = new URL("../../Sources/SortKitServer/Templates/", import.meta.url);
const modules = readdirSync(assets).filter((name) => name.endsWith(".mjs"))
  .map((name) => ({ name, text: readFileSync(new URL(name, assets), "utf8") }));
const templates = readdirSync(templatesFolder).filter((name) => name.endsWith(".mustache"))
  .map((name) => readFileSync(new URL(name, templatesFolder), "utf8")).join("\n");
// Classes the view model adds to a template's {{classes}} (a sorted header, a numeric cell).
const viewModel = readFileSync(new URL("../../Sources/SortKitServer/Pages/Pages.swift", import.meta.url), "utf8");
const contract = readFileSync(new URL("CONTRACT.md", assets), "utf8");
const code = modules.map((module) => module.text).join("\n");

const camelToData = (name) => "data-" + name.replace(/[A-Z]/g, (letter) => "-" + letter.toLowerCase());
const all = (pattern, text) => [...text.matchAll(pattern)].map((match) => match[1]);

// The string literals a module passes to closest/querySelector(All)/matches.
const selectors = all(/(?:closest|querySelector|querySelectorAll)\(\s*(?:"([^"]*)"|`([^`]*)`)/g, code)
  .concat(all(/(?:closest|querySelector|querySelectorAll)\(\s*`([^`]*)`/g, code)).filter(Boolean)
  .map((selector) => selector.replace(/\$\{[^}]*\}/g, "").replace(/"[^"]*"/g, '""'));

test("every data-* attribute a module reads is written by a template and listed in CONTRACT.md", () => {
  const read = new Set(all(/dataset\.([a-zA-Z]+)/g, code).map(camelToData)
    .concat(selectors.flatMap((selector) => all(/\[(data-[a-z-]+)/g, selector))));
  assert.ok(read.size >= 8, "the scan finds the attributes: " + [...read]);
  for (const attribute of read) {
    assert.ok(new RegExp(attribute + "[=\\s>]").test(templates), attribute + " is read by a module but no template writes it");
    assert.ok(contract.includes("`" + attribute + "`"), attribute + " is missing from CONTRACT.md");
  }
  for (const attribute of new Set(all(/\b(data-[a-z-]+)/g, templates))) {
    assert.ok(contract.includes("`" + attribute + "`"), attribute + " (in a template) is missing from CONTRACT.md");
  }
});

test("every id a module looks up is in a template", () => {
  const ids = all(/getElementById\("([^"]+)"\)/g, code).concat(selectors.flatMap((selector) => all(/#([a-z-]+)/g, selector)));
  assert.ok(ids.length >= 3);
  for (const id of ids) {
    assert.ok(templates.includes(`id="${id}"`), "#" + id + " is looked up but no template has it");
    assert.ok(contract.includes("`" + id + "`"), "#" + id + " is missing from CONTRACT.md");
  }
  for (const id of all(/form\.id !== "([^"]+)"|form\.id === "([^"]+)"/g, code).filter(Boolean)) {
    assert.ok(templates.includes(`id="${id}"`), "form #" + id + " is not in a template");
  }
});

test("every class a module looks for is written by a template, the view model or a module", () => {
  const written = new Set(all(/class="([^"]*)"/g, templates).flatMap((value) => value.replace(/\{\{[^}]*\}\}/g, " ").split(/\s+/)));
  for (const literal of all(/"([^"\n]*)"/g, viewModel)) for (const word of literal.trim().split(/\s+/)) written.add(word);
  const set = new Set(all(/classList\.(?:add|toggle)\(([^)]*)\)/g, code).flatMap((args) => all(/"([a-z-]+)"/g, args)).concat(all(/className = "([a-z-]+)"/g, code)));
  const looked = new Set(selectors.flatMap((selector) => all(/\.([a-z][a-z-]*)/g, selector))
    .concat(all(/classList\.contains\("([a-z-]+)"\)/g, code)));
  assert.ok(looked.size >= 15, "the scan finds the classes: " + [...looked]);
  for (const name of looked) {
    assert.ok(written.has(name) || set.has(name), "." + name + " is looked for but nothing writes it");
    assert.ok(contract.includes("`" + name + "`"), "." + name + " is missing from CONTRACT.md");
  }
});

test("the modules import only each other, by relative path, and every module is in CONTRACT.md", () => {
  const names = new Set(modules.map((module) => module.name));
  for (const module of modules) {
    for (const target of all(/from "([^"]+)"|import "([^"]+)"/g, module.text).filter(Boolean)) {
      assert.ok(target.startsWith("./") && names.has(target.slice(2)), module.name + " imports " + target);
    }
    assert.ok(contract.includes("`" + module.name + "`"), module.name + " is missing from CONTRACT.md");
  }
  const layout = readFileSync(new URL("layout.mustache", templatesFolder), "utf8");
  assert.match(layout, /<script type="module" src="\/assets\/app\.mjs"><\/script>/);
});
