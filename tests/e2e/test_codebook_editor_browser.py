"""The Codebooks page's label editor on a codebook already in the store, in a real browser: a changed scope
and a new label are kept, saved, shown under the version just saved (not the one opened), and are there when
the codebook is opened again after another one."""
from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from data_access.coding import codebook as cb
from data_access.store import CodingStore

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

BOOK = "clarification"
ROW_HEIGHT = 35  # Streamlit's data grid: the header and every row


@pytest.fixture(scope="module")
def codebook_app(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("codebook-app")
    store = CodingStore(workdir / "notes.sqlite3")
    for description in ("first", "second"):  # two versions: the page shows its Version picker
        store.save_codebook(cb.Codebook(BOOK, (cb.Label("CR", scope="turn", colour="#d62728", key="c"),
                                               cb.Label("refers-to", scope="span", links_referents=True)),
                                        description=description))
    store.save_codebook(cb.Codebook("other", (cb.Label("X", scope="turn"),)))
    server = AppServer(workdir)
    yield server, workdir / "notes.sqlite3"
    server.stop()


def _choose(page, label: str, option: str) -> None:
    page.get_by_label(label).first.click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app(page)


def _grid_rows(page) -> list[list[str]]:
    """The label editor's cells as its accessible table gives them (the grid itself is a canvas), once the
    grid has drawn them (a grid mounted by the run just over draws after it)."""
    page.wait_for_function("""() => { const grids = document.querySelectorAll('[data-testid="stDataFrame"]');
      return grids.length && grids[grids.length - 1].querySelectorAll('table tr').length > 1; }""")
    return page.locator('[data-testid="stDataFrame"]').last.evaluate(
        "grid => [...grid.querySelectorAll('table tr')].slice(1).map(r => [...r.children].map(c => c.textContent))")


def _grid_cell(page, row: int) -> tuple[float, float]:
    """The centre of row ``row``'s (1-based; one past the last is the row that adds one) Label cell."""
    grid = page.locator('[data-testid="stDataFrame"]').last
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    return box["x"] + 60, box["y"] + ROW_HEIGHT * row + ROW_HEIGHT / 2


def _wait_selected(page, column: int, row: int) -> None:
    """Wait for the grid to say (in its accessible table) that the cell of ``column`` (1-based: Label is 1)
    and ``row`` (0-based) is selected: a key pressed before then would go elsewhere."""
    page.locator('[data-testid="stDataFrame"]').last.locator(
        f'[data-testid="glide-cell-{column}-{row}"][aria-selected="true"]').wait_for(state="attached")


def _open_cell_editor(page) -> None:
    """Wait for the cell's text box to have the focus, as a reader waits to see it before typing."""
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('textarea.gdg-input')")


def _pick_in_open_cell(page, option: str, column: int, row: int) -> None:
    """Pick ``option`` in the dropdown of the cell being edited, and wait until the grid shows it in that cell.
    The option is found by its role, not by a text that is elsewhere on the page too. On a busy machine a click
    on the menu as it opens was now and then not taken (the menu stayed open and no run started): the click is
    made again while the menu is still open and the cell does not show the option yet, at most three times."""
    shows = """([testid, option]) => { const grids = document.querySelectorAll('[data-testid="stDataFrame"]');
      const cell = grids.length && grids[grids.length - 1].querySelector(`[data-testid="${testid}"]`);
      return !!cell && cell.textContent.trim() === option; }"""
    choice = page.get_by_role("option", name=option, exact=True)
    for _ in range(3):
        choice.click()
        try:
            page.wait_for_function(shows, arg=[f"glide-cell-{column}-{row}", option], timeout=10_000)
            return
        except PlaywrightTimeout:
            if not choice.is_visible():
                raise
    raise AssertionError(f"the cell never showed {option!r}")


def _save(page) -> None:
    page.get_by_role("button", name="Save as new version").click()
    wait_for_app(page)


def test_an_existing_codebook_keeps_a_changed_scope_and_a_new_label_across_saves(codebook_app, page):
    server, db = codebook_app
    page.goto(f"{server.url}/codebooks?coder=ann")
    wait_for_app(page)
    _choose(page, "Edit", BOOK)
    assert page.get_by_label("Version").input_value() == "2"

    # the first label's scope: select its name, step to the Scope column, open it and pick "dialog"
    page.mouse.click(*_grid_cell(page, 1))
    _wait_selected(page, 1, 0)
    for column in (2, 3, 4):
        page.keyboard.press("ArrowRight")
        _wait_selected(page, column, 0)
    page.keyboard.press("Enter")
    _pick_in_open_cell(page, "dialog", column=4, row=0)
    wait_for_app(page)
    _save(page)
    saved = CodingStore(db).codebook(BOOK)
    assert saved.version == 3 and [(label.name, label.scope) for label in saved.labels] == [
        ("CR", "dialog"), ("refers-to", "span")]
    # the page shows what it saved, as that version (it stayed on version 2 with the edit pending over it)
    # the save's own run asks for one more (st.rerun) that shows the new version: wait on the page for it
    expect(page.get_by_label("Version")).to_have_value("3", timeout=60_000)
    assert [row[:4] for row in _grid_rows(page)] == [["CR", "", "#d62728", "dialog"], ["refers-to", "", "#1f77b4", "span"]]

    # a new label typed into the row that adds one, every keystroke of it
    page.mouse.click(*_grid_cell(page, 3))
    _open_cell_editor(page)
    page.keyboard.type("ABC", delay=80)
    page.keyboard.press("Enter")
    wait_for_app(page)
    _save(page)
    saved = CodingStore(db).codebook(BOOK)
    assert saved.version == 4 and [label.name for label in saved.labels] == ["CR", "refers-to", "ABC"]
    expect(page.get_by_label("Version")).to_have_value("4", timeout=60_000)

    # opened again after another codebook: the newest version, with the scope and the label
    _choose(page, "Edit", "other")
    _choose(page, "Edit", BOOK)
    expect(page.get_by_label("Version")).to_have_value("4", timeout=60_000)
    assert [(row[0], row[3]) for row in _grid_rows(page)] == [("CR", "dialog"), ("refers-to", "span"), ("ABC", "turn")]
    # an older version shows its own description, not the one typed or shown last
    _choose(page, "Version", "1")
    assert page.get_by_label("Description").input_value() == "first"
    assert [(row[0], row[3]) for row in _grid_rows(page)] == [("CR", "turn"), ("refers-to", "span")]
