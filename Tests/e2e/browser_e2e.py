#!/usr/bin/env python3
"""End-to-end test of `sortkit serve` in headless Chromium (Selenium), plus an interop check
that the real jQuery DataTables (Debian's libjs-jquery-datatables) works against our
/datatables endpoint in server-side mode.

usage: browser_e2e.py BASE_URL     (a running `sortkit serve` with the demo library)
Exits non-zero with a message on the first failed check. Run by SortKitServerTests'
BrowserTests, which starts the server; .ci/run installs Chromium, the driver, DataTables and
Selenium.
"""
import csv
import http.server
import io
import json
import os
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

os.environ.setdefault("SE_OFFLINE", "true")
os.environ.setdefault("SE_AVOID_STATS", "true")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

BASE = sys.argv[1].rstrip("/")
DATATABLES = "/usr/share/javascript/jquery-datatables/jquery.dataTables.min.js"
JQUERY = "/usr/share/javascript/jquery/jquery.min.js"


def api(path):
    with urllib.request.urlopen(BASE + path) as response:
        return json.load(response)


def api_ids(query, table="books"):
    return [row["id"] for row in api(f"/api/tables/{table}/rows?" + query)["rows"]]


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok -", message)


def page_ids(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#view tbody tr[data-id]')].map(r => Number(r.dataset.id))")


# 30 s: only a failure waits that long; the suite runs beside CPU-heavy tests on 2 cores.
def wait_for(driver, predicate, what, timeout=30):
    try:
        WebDriverWait(driver, timeout).until(lambda d: predicate(d))
    except Exception:
        raise AssertionError(f"timed out waiting for {what} (url {driver.current_url}, status {status_text(driver)!r})")


def status_text(driver):
    return driver.execute_script("const s = document.getElementById('status'); return s ? s.textContent : ''")


def header(driver, column):
    return driver.find_element(By.CSS_SELECTOR, f'#view th[data-column="{column}"] a')


def main():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        app(driver)
        phone_width(driver)
        sort_features(driver)
        columns_and_files(driver)
        selection(driver)
        hostile_and_delete(driver)
        datatables_interop(driver)
    finally:
        driver.quit()


def app(driver):
    driver.get(BASE + "/tables/books")
    check(driver.find_element(By.CSS_SELECTOR, "html").get_attribute("class") == "js", "app.mjs runs")

    header(driver, "title").click()
    wait_for(driver, lambda d: "sort=title" in d.current_url, "sort=title in the URL")
    check(page_ids(driver) == api_ids("sort=title&limit=25"), "clicking a header sorts by it")
    check(driver.find_element(By.CSS_SELECTOR, '#view th[data-column="title"]').get_attribute("aria-sort") == "ascending",
          "aria-sort says ascending")

    ActionChains(driver).key_down(Keys.SHIFT).click(header(driver, "price")).key_up(Keys.SHIFT).perform()
    wait_for(driver, lambda d: "sort=title,price" in d.current_url, "shift-click adds a key")
    check(page_ids(driver) == api_ids("sort=title,price&limit=25"), "shift-click multi-sort orders as the API")

    box = driver.find_element(By.CSS_SELECTOR, "#view input[name=q]")
    box.send_keys("zola hidden")
    wait_for(driver, lambda d: "q=zola+hidden" in d.current_url, "the search in the URL")
    expected = api_ids("sort=title,price&q=zola+hidden&limit=25")
    wait_for(driver, lambda d: page_ids(d) == expected, "searched rows")
    check(len(expected) > 0, "debounced multi-term search shows the matching rows")

    box = driver.find_element(By.CSS_SELECTOR, "#view input[name=q]")
    box.clear()
    box.send_keys(" ")
    wait_for(driver, lambda d: "q=" not in d.current_url, "clearing the search")
    driver.find_element(By.CSS_SELECTOR, "#view .pager a[rel=next]").click()
    wait_for(driver, lambda d: "page=2" in d.current_url, "page 2")
    check(page_ids(driver) == api_ids("sort=title,price&limit=25&offset=25"), "paging shows the next rows")

    driver.refresh()
    check(page_ids(driver) == api_ids("sort=title,price&limit=25&offset=25"), "a reload shows the same view")

    Select(driver.find_element(By.CSS_SELECTOR, "#view select[name=preset]")).select_by_visible_text("Cheapest")
    wait_for(driver, lambda d: "preset=Cheapest" in d.current_url, "the preset in the URL")
    check(page_ids(driver) == api_ids("preset=Cheapest&limit=25"), "picking a preset sorts by it")

    Select(driver.find_element(By.CSS_SELECTOR, "#view select[name=preset]")).select_by_visible_text("My order")
    wait_for(driver, lambda d: "preset=My+order" in d.current_url, "My order")
    before = page_ids(driver)
    check(before[:3] == api_ids("sort=manual&limit=3"), "My order shows the manual order")
    # HTML5 drag and drop: Chrome under WebDriver doesn't synthesize native drag events, so
    # dispatch the same events a user's drag fires.
    driver.execute_script("""
        const rows = document.querySelectorAll('#view tbody tr[data-id]');
        const source = rows[2], target = rows[0];
        const data = new DataTransfer();
        const box = target.getBoundingClientRect();
        source.dispatchEvent(new DragEvent('dragstart', {bubbles: true, dataTransfer: data}));
        target.dispatchEvent(new DragEvent('dragover', {bubbles: true, cancelable: true, dataTransfer: data, clientY: box.top + 2}));
        target.dispatchEvent(new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: data, clientY: box.top + 2}));
    """)
    dragged = [before[2], before[0], before[1]] + before[3:]
    wait_for(driver, lambda d: page_ids(d) == dragged, "the dragged row at the top")
    row = driver.find_element(By.CSS_SELECTOR, f'#view tbody tr[data-id="{before[0]}"]')
    row.click()
    ActionChains(driver).key_down(Keys.ALT).send_keys(Keys.ARROW_DOWN).key_up(Keys.ALT).perform()
    moved = [before[2], before[1], before[0]] + before[3:]
    wait_for(driver, lambda d: page_ids(d) == moved, "Alt+Down moves the current row")
    driver.refresh()
    check(page_ids(driver) == moved and api_ids("sort=manual&limit=25") == moved, "drag and keyboard moves persist across a reload")

    cell = driver.find_element(By.CSS_SELECTOR, f'#view tbody tr[data-id="{moved[0]}"] td[data-column="price"]')
    ActionChains(driver).double_click(cell).perform()
    editor = driver.find_element(By.CSS_SELECTOR, "#view td.editing input")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys("not a price", Keys.ENTER)
    wait_for(driver, lambda d: "needs a float" in status_text(d), "the server's validation message")
    editor = driver.find_element(By.CSS_SELECTOR, "#view td.editing input")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys("0.01", Keys.ENTER)
    wait_for(driver, lambda d: "Saved" in status_text(d), "the edit saved")
    row = api("/api/tables/books/rows?sort=manual&limit=1")["rows"][0]
    check(row["id"] == moved[0] and row["price"] == 0.01, "an inline edit is saved through the API")


def phone_width(driver):
    """At 390 px the first column and the sorted ones stay on screen; the rest fold into a
    row's detail (the ⋯ button)."""
    driver.set_window_size(390, 844)
    try:
        driver.get(BASE + "/tables/books?sort=-price")
        wait_for(driver, lambda d: d.execute_script("return document.documentElement.classList.contains('js')"), "app.mjs at phone width")
        width = driver.execute_script("return window.innerWidth")
        check(width <= 420, f"the window is phone-sized ({width} px wide)")

        def on_screen(column):
            return driver.execute_script(
                "const th = document.querySelector(`#view thead th[data-column='${arguments[0]}']`);"
                "const box = th.getBoundingClientRect();"
                "return getComputedStyle(th).display !== 'none' && box.width > 0 && box.left >= 0 && box.right <= window.innerWidth + 1",
                column)
        check(on_screen("title"), "at 390 px the first column is on screen")
        check(on_screen("price"), "at 390 px the sorted column is on screen")
        check(not any(on_screen(c) for c in ["author", "status", "published"]), "at 390 px the other columns fold away")
        check(driver.execute_script("const s = document.querySelector('#view .scroll'); return s.scrollWidth <= s.clientWidth + 1"),
              "at 390 px the table needs no sideways scrolling")
        first = api("/api/tables/books/rows?sort=-price&limit=1")["rows"][0]
        driver.find_element(By.CSS_SELECTOR, f'#view tr[data-id="{first["id"]}"] button.more').click()
        detail = driver.execute_script(
            "const d = document.querySelector('#view tr.detail'); if (!d) return null;"
            "return Object.fromEntries([...d.querySelectorAll('dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent]))")
        check(detail is not None and detail.get("author") == first["author"] and "title" not in detail and "price" not in detail,
              f"the ⋯ button shows the folded columns of the row under it ({detail})")
        driver.find_element(By.CSS_SELECTOR, f'#view tr[data-id="{first["id"]}"] button.more').click()
        check(driver.execute_script("return document.querySelector('#view tr.detail') === null"), "a second press folds the detail again")
        check(page_ids(driver) == api_ids("sort=-price&limit=25"), "rows and order are the same at phone width")
    finally:
        driver.set_window_size(1280, 900)


def sort_features(driver):
    """The people table: a fixed key and a pinned row shape the page; keyboard sorting with
    Enter and Shift+Enter on a focused header, announced; a descending-first column; the view
    saved across visits and Reset."""
    driver.get(BASE + "/tables/people")
    ids = page_ids(driver)
    check(ids == api_ids("limit=25", "people") and ids[0] == 42, "the pinned row first, then the fixed key's order, as the API")
    check("pinned" in driver.find_element(By.CSS_SELECTOR, '#view tr[data-id="42"]').get_attribute("class"), "the pinned row is marked")
    statuses = driver.execute_script(
        "return [...document.querySelectorAll('#view tbody tr:not(.pinned) td[data-column=\"status\"]')].map(td => td.textContent)")
    check(statuses == sorted(statuses, key=lambda s: ["todo", "done"].index(s)) and "todo" in statuses,
          "the fixed key groups todo before done")

    driver.execute_script("document.querySelector('#view th[data-column=\"price\"] a').focus()")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait_for(driver, lambda d: "sort=-price" in d.current_url, "Enter on a focused header sorts, descending first for price")
    check(page_ids(driver) == api_ids("sort=-price&limit=25", "people"), "the keyboard sort orders as the API")
    focused = driver.execute_script("const a = document.activeElement; const th = a && a.closest('th'); return th ? th.dataset.column : null")
    check(focused == "price", "the focus stays on the header after the sort")
    wait_for(driver, lambda d: d.find_element(By.ID, "announce").get_attribute("textContent") == "Sorted by price descending",
             "the sort is announced to screen readers")

    driver.execute_script("document.querySelector('#view th[data-column=\"name\"] a').focus()")
    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
    wait_for(driver, lambda d: "sort=-price,name" in d.current_url, "Shift+Enter adds a key")
    check(page_ids(driver) == api_ids("sort=-price,name&limit=25", "people"), "the added key (sorted by last, first) orders as the API")
    wait_for(driver, lambda d: d.find_element(By.ID, "announce").get_attribute("textContent")
             == "Sorted by price descending, then name ascending", "the multi-key sort is announced")
    check(len(driver.window_handles) == 1, "Shift+Enter doesn't open a window")
    driver.find_element(By.CSS_SELECTOR, '#view th[data-column="price"] a.unsort').click()
    wait_for(driver, lambda d: "sort=name" in d.current_url and "price" not in d.current_url, "× removes one key of a multi-key sort")
    check(page_ids(driver) == api_ids("sort=name&limit=25", "people"), "the remaining key orders as the API")
    driver.execute_script("document.querySelector('#view th[data-column=\"price\"] a').focus()")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait_for(driver, lambda d: "sort=-price" in d.current_url, "back to price")
    driver.execute_script("document.querySelector('#view th[data-column=\"name\"] a').focus()")
    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
    wait_for(driver, lambda d: "sort=-price,name" in d.current_url, "the two keys again")

    driver.get(BASE + "/tables/people")
    wait_for(driver, lambda d: "sort=-price,name" in d.current_url, "the saved view comes back on a visit without a query")
    check(page_ids(driver) == api_ids("sort=-price,name&limit=25", "people"), "the restored view shows its rows")
    driver.find_element(By.CSS_SELECTOR, "#view a.reset").click()
    wait_for(driver, lambda d: d.current_url.endswith("/tables/people"), "Reset goes to the default view")
    driver.get(BASE + "/tables/people")
    check(driver.current_url.endswith("/tables/people") and page_ids(driver) == api_ids("limit=25", "people"),
          "after Reset a visit shows the default view")


def cell_box(driver, column):
    return driver.execute_script(
        f"const th = document.querySelector('#view thead th[data-column=\"{column}\"]');"
        "if (!th || getComputedStyle(th).display === 'none') return null;"
        "const b = th.getBoundingClientRect(); return [b.left, b.width];")


def columns_and_files(driver):
    """Hide, reorder, resize and freeze columns (kept across a reload); per-column filters;
    Download CSV of the view; Import CSV with a bad line, then a good file."""
    driver.get(BASE + "/tables/books?sort=title&size=10")
    driver.find_element(By.CSS_SELECTOR, "#view .columns-menu summary").click()
    driver.find_element(By.CSS_SELECTOR, '#view .columns-menu input[data-toggle-column="author"]').click()
    wait_for(driver, lambda d: cell_box(d, "author") is None, "the author column hidden")
    check(driver.execute_script("return getComputedStyle(document.querySelector('#view tbody td[data-column=\"author\"]')).display") == "none",
          "hiding a column hides its cells")
    driver.find_element(By.CSS_SELECTOR, '#view .columns-menu li[data-column="price"] button[data-move="-1"]').click()
    order = driver.execute_script("return [...document.querySelectorAll('#view thead tr:first-child th[data-column]')].map(th => th.dataset.column)")
    check(order.index("price") < order.index("status"), "moving a column left reorders the headers")
    row_order = driver.execute_script("return [...document.querySelectorAll('#view tbody tr:first-child td[data-column]')].map(td => td.dataset.column)")
    check(row_order == order, "the cells follow their headers")

    before = cell_box(driver, "title")[1]
    handle = driver.find_element(By.CSS_SELECTOR, '#view th[data-column="title"] .resizer')
    ActionChains(driver).click_and_hold(handle).move_by_offset(120, 0).release().perform()
    wait_for(driver, lambda d: abs(cell_box(d, "title")[1] - (before + 120)) < 8,
             f"the title column 120 px wider (was {before}, now {cell_box(driver, 'title')}, saved "
             + str(driver.execute_script("return localStorage.getItem('sortkit.columns.books')")) + ")")

    Select(driver.find_element(By.CSS_SELECTOR, "#view .columns-menu select.freeze")).select_by_value("1")
    check("frozen" in driver.find_element(By.CSS_SELECTOR, '#view tbody td[data-column="title"]').get_attribute("class"),
          "the first column is frozen")
    driver.execute_script("document.querySelector('#view .scroll').style.maxWidth = '500px'; document.querySelector('#view .scroll').scrollLeft = 300")
    left_edge = driver.execute_script("return document.querySelector('#view .scroll').getBoundingClientRect().left")
    title_left = cell_box(driver, "title")[0]
    check(title_left >= left_edge and title_left < left_edge + 80, "a frozen column stays in view when the table scrolls sideways")

    driver.refresh()
    wait_for(driver, lambda d: cell_box(d, "author") is None, "hidden after a reload")
    check(abs(cell_box(driver, "title")[1] - (before + 120)) < 8, "the width is kept across a reload")

    box = driver.find_element(By.CSS_SELECTOR, '#view input.filter[name="filter[status]"]')
    box.send_keys("done")
    wait_for(driver, lambda d: "filter[status]=done" in d.current_url, "the filter in the URL")
    expected = api_ids("sort=title&filter[status]=done&limit=10")
    wait_for(driver, lambda d: page_ids(d) == expected, "filtered rows")
    statuses = driver.execute_script("return [...document.querySelectorAll('#view tbody td[data-column=\"status\"]')].map(td => td.textContent)")
    check(len(statuses) > 0 and all("done" in s for s in statuses) and "reading" not in statuses,
          "a column filter keeps only rows whose column matches (\"done\", \"abandoned\")")

    href = driver.find_element(By.CSS_SELECTOR, "#view a.download").get_attribute("href")
    with urllib.request.urlopen(href) as response:
        records = list(csv.reader(io.StringIO(response.read().decode("utf-8"))))
    everything = api("/api/tables/books/rows?sort=title&filter[status]=done&limit=1000")
    check(records[0] == ["title", "author", "status", "price", "published"], "the download's header is the table's columns")
    check([r[0] for r in records[1:]] == [row["title"] for row in everything["rows"]] and len(records) - 1 == everything["filtered"],
          "Download CSV is exactly the view: every matching row, in order")

    check(len(driver.find_elements(By.CSS_SELECTOR, '#view tbody td.sorted.sorted-1[data-column="title"]')) == len(page_ids(driver)),
          "the sorted column's cells are highlighted")
    shades = driver.execute_script(
        "const rows = document.querySelectorAll('#view tbody tr');"
        "return [getComputedStyle(rows[0].querySelector('td[data-column=\"price\"]')).backgroundColor,"
        "        getComputedStyle(rows[1].querySelector('td[data-column=\"price\"]')).backgroundColor]")
    check(shades[0] != shades[1], "rows alternate their shading")
    driver.get(BASE + "/tables/books?sort=title&size=100")
    driver.execute_script("document.querySelector('#view .scroll').scrollTop = 1500")
    sticky = driver.execute_script(
        "const s = document.querySelector('#view .scroll').getBoundingClientRect().top;"
        "const h = document.querySelector('#view thead th[data-column=\"title\"]').getBoundingClientRect().top; return h - s")
    check(-2 <= sticky <= 4, f"the header row stays at the top while the rows scroll ({sticky})")
    driver.find_element(By.CSS_SELECTOR, "#view .columns-menu summary").click()
    driver.find_element(By.CSS_SELECTOR, "#view .columns-menu input.rtl").click()
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#view .scroll").get_attribute("dir") == "rtl", "right to left")
    title = cell_box(driver, "title")
    published = cell_box(driver, "published")
    check(title[0] > published[0], "right to left puts the first column at the right")

    driver.find_element(By.CSS_SELECTOR, "#view a.reset").click()
    wait_for(driver, lambda d: cell_box(d, "author") is not None, "Reset shows every column again")
    check(driver.find_element(By.CSS_SELECTOR, "#view .scroll").get_attribute("dir") in (None, ""), "Reset goes back to left to right")

    folder = tempfile.mkdtemp()
    bad = os.path.join(folder, "broken.csv")
    with open(bad, "w") as handle:
        handle.write('a,b\n1,2\n"open,3\n')
    good = os.path.join(folder, "planets.csv")
    with open(good, "w") as handle:
        handle.write("planet,moons\nMars,2\nEarth,1\nJupiter,95\n")
    driver.get(BASE + "/")
    driver.find_element(By.CSS_SELECTOR, "#import-csv input[name=file]").send_keys(bad)
    check(driver.find_element(By.CSS_SELECTOR, "#import-csv input[name=name]").get_attribute("value") == "broken", "the name comes from the file")
    driver.find_element(By.CSS_SELECTOR, "#import-csv button[type=submit]").click()
    wait_for(driver, lambda d: "line 3" in status_text(d), "the import error names the line")
    check(all(t["name"] != "broken" for t in api("/api/tables")["tables"]), "a bad file creates no table")
    name = driver.find_element(By.CSS_SELECTOR, "#import-csv input[name=name]")
    name.clear()
    driver.find_element(By.CSS_SELECTOR, "#import-csv input[name=file]").send_keys(good)
    driver.find_element(By.CSS_SELECTOR, "#import-csv button[type=submit]").click()
    wait_for(driver, lambda d: d.current_url.endswith("/tables/planets"), "the imported table opens")
    header(driver, "moons").click()
    wait_for(driver, lambda d: "sort=moons" in d.current_url, "sorted by moons")
    check(page_ids(driver) == [2, 1, 3], "the imported column is typed: moons sort as numbers")


def hostile_and_delete(driver):
    """Cells and a column name whose < and " a mark joins into one grapheme cluster stay text
    in a real browser (no element, no script), on the page and through DataTables; then the
    table is deleted with the start page's Delete button (confirmed)."""
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "hostile.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('title,"\u0600<img src=x onerror=window.pwned=2 \u0600>"\n')
        handle.write('"\u0600<img src=x onerror=window.pwned=1 \u0600>",1\n')
        handle.write('"x""\u0301 autofocus onfocus=window.pwned=3 ""\u0301",2\n')
    driver.get(BASE + "/")
    driver.find_element(By.CSS_SELECTOR, "#import-csv input[name=file]").send_keys(path)
    driver.find_element(By.CSS_SELECTOR, "#import-csv button[type=submit]").click()
    wait_for(driver, lambda d: d.current_url.endswith("/tables/hostile"), "the hostile table opens")
    time.sleep(0.5)
    check(driver.execute_script("return window.pwned === undefined"), "no cell or column name ran script on the table page")
    check(driver.execute_script("return document.querySelectorAll('#view img').length") == 0, "no <img> was made from a cell")
    cells = driver.execute_script("return [...document.querySelectorAll('#view td.cell')].map(td => td.textContent)")
    check(any("<img src=x onerror=window.pwned=1" in cell for cell in cells), "the cell shows as text")
    driver.get(BASE + "/")
    time.sleep(0.3)
    check(driver.execute_script("return window.pwned === undefined && document.querySelectorAll('img').length === 0"),
          "no column name ran script on the start page")
    item = driver.find_element(By.CSS_SELECTOR, 'ul.tables li[data-table="hostile"]')
    item.find_element(By.CSS_SELECTOR, "button.delete-table").click()
    alert = WebDriverWait(driver, 10).until(lambda d: d.switch_to.alert)
    check("hostile" in alert.text, "the confirmation names the table")
    alert.accept()
    wait_for(driver, lambda d: "Deleted table hostile" in status_text(d), "the table is deleted")
    check(all(t["name"] != "hostile" for t in api("/api/tables")["tables"]), "the API no longer lists it")


def selected_ids(driver):
    return set(driver.execute_script(
        "return [...document.querySelectorAll('#view tbody tr.selected[aria-selected=true]')].map(r => Number(r.dataset.id))"))


def stored_selection(driver):
    return set(driver.execute_script("return JSON.parse(sessionStorage.getItem('sortkit.selection.books') || '[]')"))


def row_box(driver, row_id):
    return driver.find_element(By.CSS_SELECTOR, f'#view tbody tr[data-id="{row_id}"] input.select-row')


def selection(driver):
    """Row selection: checkboxes, shift-click ranges, Space, kept across sorts and searches;
    bulk delete and a block move in My order."""
    driver.get(BASE + "/tables/books?sort=title&size=500")
    driver.execute_script("sessionStorage.clear()")
    driver.refresh()
    ids = page_ids(driver)
    chosen = [ids[0], ids[2], ids[4]]
    for row_id in chosen:
        row_box(driver, row_id).click()
    check(selected_ids(driver) == set(chosen), "clicking three checkboxes selects those rows (aria-selected)")
    check("3 selected" in driver.find_element(By.CSS_SELECTOR, "#view .bulk").text, "the bulk bar counts the selection")

    header(driver, "price").click()
    wait_for(driver, lambda d: "sort=price" in d.current_url, "sorted by price")
    check(page_ids(driver) != ids and selected_ids(driver) == set(chosen), "the same rows stay selected after a sort")
    box = driver.find_element(By.CSS_SELECTOR, "#view input[name=q]")
    box.send_keys("zola")
    wait_for(driver, lambda d: "q=zola" in d.current_url, "the search")
    shown = set(page_ids(driver))
    check(selected_ids(driver) == set(chosen) & shown and stored_selection(driver) == set(chosen),
          "a search shows the selected matches and keeps the rest of the selection")
    matching = api("/api/tables/books/rows?q=zola&limit=1")["filtered"]
    everything = driver.find_element(By.CSS_SELECTOR, "#view input.select-all")
    check(everything.get_attribute("aria-label") == f"Select all {matching} matching rows", "the header checkbox names the count")
    everything.click()
    wait_for(driver, lambda d: f"Selected {matching} matching" in status_text(d), "all matching rows selected")
    check(stored_selection(driver) == set(chosen) | set(api_ids(f"q=zola&limit=500")), "the header checkbox selects every matching row")
    check(driver.find_element(By.CSS_SELECTOR, "#view input.select-all").is_selected(), "the header checkbox shows all selected")
    driver.find_element(By.CSS_SELECTOR, "#view input.select-all").click()
    check(stored_selection(driver) == set(chosen) - set(api_ids(f"q=zola&limit=500")),
          "unchecking it removes the matching rows and keeps the others")
    box = driver.find_element(By.CSS_SELECTOR, "#view input[name=q]")
    box.clear()
    box.send_keys(" ")
    wait_for(driver, lambda d: "q=" not in d.current_url, "the search cleared")

    driver.find_element(By.CSS_SELECTOR, "#view button.bulk-clear").click()
    check(selected_ids(driver) == set() and stored_selection(driver) == set(), "Clear selection empties it")
    order = page_ids(driver)
    row_box(driver, order[5]).click()
    ActionChains(driver).key_down(Keys.SHIFT).click(row_box(driver, order[8])).key_up(Keys.SHIFT).perform()
    check(selected_ids(driver) == set(order[5:9]), "shift-click selects the range in the order shown")
    row = driver.find_element(By.CSS_SELECTOR, f'#view tbody tr[data-id="{order[12]}"]')
    row.click()
    row.send_keys(Keys.SPACE)
    check(selected_ids(driver) == set(order[5:9]) | {order[12]}, "Space toggles the focused row")
    row.send_keys(Keys.SPACE)
    check(selected_ids(driver) == set(order[5:9]), "Space again deselects it")

    total = api("/api/tables/books/rows?limit=1")["total"]
    doomed = order[5:9]
    driver.find_element(By.CSS_SELECTOR, "#view button.bulk-delete").click()
    alert = driver.switch_to.alert
    check("Delete 4 selected rows?" in alert.text, "bulk delete asks with the count")
    alert.accept()
    wait_for(driver, lambda d: "Deleted 4 rows" in status_text(d), "the bulk delete")
    check(api("/api/tables/books/rows?limit=1")["total"] == total - 4 and not set(doomed) & set(page_ids(driver)),
          "bulk delete removes exactly the selected rows")
    check(stored_selection(driver) == set(), "deleted rows leave the selection")

    Select(driver.find_element(By.CSS_SELECTOR, "#view select[name=preset]")).select_by_visible_text("My order")
    wait_for(driver, lambda d: "preset=My+order" in d.current_url, "My order")
    manual = page_ids(driver)
    block = [manual[1], manual[3], manual[4]]
    for row_id in reversed(block):   # selected out of order: the block keeps the list's order
        row_box(driver, row_id).click()
    target = manual[10]
    driver.find_element(By.CSS_SELECTOR, f'#view tbody tr[data-id="{target}"] button.move-here').click()
    expected = [i for i in manual if i not in block]
    expected[expected.index(target) + 1:expected.index(target) + 1] = block
    wait_for(driver, lambda d: page_ids(d) == expected, "the block after the target row")
    check(api_ids("sort=manual&limit=500") == expected, "a block move keeps the block's order and persists")

    # A selected row deleted elsewhere (another tab, the API): the bulk action refuses, names
    # it, drops it from the selection, and succeeds on the next try.
    gone = block[1]
    urllib.request.urlopen(urllib.request.Request(BASE + f"/api/tables/books/rows/{gone}", method="DELETE"))
    target = page_ids(driver)[20]
    driver.find_element(By.CSS_SELECTOR, f'#view tbody tr[data-id="{target}"] button.move-here').click()
    wait_for(driver, lambda d: f"Row {gone} no longer exists" in status_text(d), "the gone row named")
    check(stored_selection(driver) == {block[0], block[2]}, "a row deleted elsewhere leaves the selection")
    driver.find_element(By.CSS_SELECTOR, f'#view tbody tr[data-id="{target}"] button.move-here').click()
    wait_for(driver, lambda d: "Moved 2 rows" in status_text(d), "the retried move")

    # Scrolling sideways keeps the checkbox and the first data column in view.
    position = driver.execute_script("""
        const cell = document.querySelector('#view tbody tr[data-id] td.cell');
        const style = getComputedStyle(cell);
        return [style.position, style.left];""")
    check(position[0] == "sticky" and position[1] != "0px", "the first data column is frozen right of the checkbox and handle")


class DataTablesPage(http.server.BaseHTTPRequestHandler):
    """Serves a page using Debian's jQuery DataTables, its scripts, and a same-origin proxy of
    /datatables/ to the SortKit server."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("/datatables/"):
            return self.proxy()
        files = {"/jquery.js": JQUERY, "/datatables.js": DATATABLES}
        if self.path in files:
            with open(files[self.path], "rb") as file:
                return self.reply(200, "text/javascript", file.read())
        page = """<!doctype html><html><head><meta charset="utf-8"><script src="/jquery.js"></script>
<script src="/datatables.js"></script></head><body><table id="t"><thead><tr>
<th>title</th><th>author</th><th>status</th><th>price</th><th>published</th></tr></thead></table>
<script>
window.table = $('#t').DataTable({serverSide: true, processing: false, searchDelay: 0, pageLength: 10,
  ajax: {url: '/datatables/books', type: 'POST', contentType: 'application/json', data: d => JSON.stringify(d)},
  columns: ['title', 'author', 'status', 'price', 'published'].map(name => ({data: name, defaultContent: ''}))});
</script></body></html>"""
        self.reply(200, "text/html", page.encode())

    def do_POST(self):
        self.proxy()

    def proxy(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        request = urllib.request.Request(BASE + self.path, data=body, method=self.command,
                                         headers={"Content-Type": self.headers.get("Content-Type", "text/plain")})
        with urllib.request.urlopen(request) as response:
            self.reply(response.status, response.headers["Content-Type"], response.read())

    def reply(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def datatables_interop(driver):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), DataTablesPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/")

        def titles(d):
            return d.execute_script("return table.rows().data().toArray().map(r => r.id)")

        wait_for(driver, lambda d: len(titles(d)) == 10, "DataTables' first draw")
        check(titles(driver) == api_ids("sort=title&limit=10"), "DataTables sorts by its first column on load")
        driver.execute_script("table.order([[3, 'desc'], [0, 'asc']]).draw()")
        wait_for(driver, lambda d: titles(d) == api_ids("sort=-price,title&limit=10"), "DataTables multi-column order")
        driver.execute_script("table.search('le guin').draw()")
        expected = api_ids("sort=-price,title&q=le+guin&limit=10")
        wait_for(driver, lambda d: titles(d) == expected, "DataTables global search")
        info = driver.execute_script("return table.page.info()")
        check(info["recordsDisplay"] == api("/api/tables/books/rows?q=le+guin&limit=0")["filtered"], "DataTables' filtered count")
        driver.execute_script("table.page(1).draw('page')")
        wait_for(driver, lambda d: titles(d) == api_ids("sort=-price,title&q=le+guin&limit=10&offset=10"), "DataTables paging")
        print("ok - jQuery DataTables works against /datatables in server-side mode")
    finally:
        server.shutdown()


if __name__ == "__main__":
    started = time.time()
    main()
    print(f"browser e2e passed in {time.time() - started:.1f}s")
