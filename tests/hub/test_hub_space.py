"""The leaderboard Space in headless Chromium, built as it is deployed (`hf-induction space`):
the page shows the rows of a known results folder in the board's order and spelling, a
filter narrows them, the figures are whole, About and Citation are there, and a screenshot is
kept (tmp_path, and HF_INDUCTION_SCREENSHOTS if set) for a person to look at.

Needs gradio, playwright (the Python package; no `playwright install`) and Debian's chromium.
"""

import pytest
from _results_fixture import CHECKPOINT_REPO, write_results
from _space_app import CHROMIUM, CHROMIUM_ARGS, running_app, screenshot

from hf_induction.hub.leaderboard import BOARD_TABLES, SourceResults
from hf_induction.results.render import SPACE_CHECKPOINT_COLUMN, SPACE_PROTOCOL_COLUMN

pytest.importorskip("gradio")
sync_api = pytest.importorskip("playwright.sync_api")
# End to end: the Space in a browser (Chromium).
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")]


@pytest.fixture
def space_url(tmp_path):
    from hf_induction.hub.space import write_space

    write_results(tmp_path / "results")
    with running_app(write_space([tmp_path / "results"], tmp_path / "space"), tmp_path) as url:
        yield url


def _models_shown(page) -> list[str]:
    """The model column (5th) of the data rows the table renders."""
    return page.eval_on_selector_all(
        "#kappa-table [role=row]",
        "rows => rows.map(r => r.querySelectorAll('[role=gridcell]')[4]?.innerText.trim())"
        ".filter(Boolean)",
    )


def _column(page, index: int) -> list[str]:
    """The cells of one column of the rendered data rows."""
    return page.eval_on_selector_all(
        "#kappa-table [role=row]",
        f"rows => rows.slice(1).map(r => r.querySelectorAll('[role=gridcell]')[{index}]"
        "?.innerText.trim())")


def _row_count(page) -> int:
    return int(page.get_attribute("#kappa-table [role=grid]", "aria-rowcount")) - 1  # - header


def _kappa_tab(browser, url: str):
    """A page of the Space at ``url`` once its κ table has rendered its rows."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector("#kappa-table [role=grid]", timeout=30_000)
    page.wait_for_function(
        "document.querySelector('#kappa-table')?.innerText?.includes('dense_ssm')",
        timeout=30_000)
    return page


def test_space_table_loads_and_filters(space_url, tmp_path):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = _kappa_tab(browser, space_url)
            assert _row_count(page) == 5
            # The κ column (6th) is never blank: an undefined κ shows its bounds.
            kappas = page.eval_on_selector_all(
                "#kappa-table [role=row]",
                "rows => rows.slice(1).map(r => r.querySelectorAll('[role=gridcell]')[5]"
                "?.innerText.trim())")
            assert len(kappas) == 5 and all(kappas), kappas
            assert sorted(_models_shown(page)) == ["dense_ssm", "gpt2", "gpt2", "lstm", "lstm"]
            # Every row names its protocol; the one cell that pushed links its checkpoint.
            headers = page.eval_on_selector_all(
                "#kappa-table [role=columnheader]", "hs => hs.map(h => h.innerText.trim())")
            protocols = _column(page, headers.index(SPACE_PROTOCOL_COLUMN))
            assert all(p.startswith("10 steps, 1 lr × 2 seeds") for p in protocols), protocols
            checkpoints = _column(page, headers.index(SPACE_CHECKPOINT_COLUMN))
            assert sorted(checkpoints) == sorted([CHECKPOINT_REPO] + ["—"] * 4), checkpoints
            assert page.locator(f"#kappa-table a[href='https://huggingface.co/{CHECKPOINT_REPO}']"
                                ).count() >= 1
            assert page.locator("text=κ leaderboard").first.is_visible()
            # Ranked as the board ranks them, each κ spelled as the board spells it (an
            # undefined κ as its bound); no second column spells κ another way.
            columns, lines = BOARD_TABLES[0].space([SourceResults.load(tmp_path / "results")])
            assert _column(page, headers.index("κ")) == [line["κ"] for line in lines]
            assert headers == list(columns), headers
            screenshot(page, tmp_path, "space_table.png")

            # The figures, whole: each image is shown at its natural aspect, nothing cut.
            page.get_by_role("tab", name="Figures").click()
            page.wait_for_selector(".figure img", timeout=20_000)
            page.wait_for_function(
                "[...document.querySelectorAll('.figure img')].every(i => i.complete "
                "&& i.naturalWidth > 0)", timeout=20_000)
            sizes = page.eval_on_selector_all(
                ".figure img", "is => is.map(i => [i.naturalWidth, i.naturalHeight, "
                "i.clientWidth, i.clientHeight, getComputedStyle(i).objectFit])")
            assert len(sizes) == 4, sizes
            for natural_w, natural_h, shown_w, shown_h, fit in sizes:
                assert fit != "cover", sizes
                assert abs(natural_w / natural_h - shown_w / shown_h) < 0.02, sizes
            screenshot(page, tmp_path, "space_figures.png")
            for tab, text in (("About", "Submitting results"), ("Citation", "@article")):
                page.get_by_role("tab", name=tab).click()
                page.get_by_text(text).first.wait_for(timeout=10_000)
            page.get_by_role("tab", name="κ", exact=True).click()

            # Columns a visitor picks: unticking two hides them, ticking them shows them again.
            for name in ("κ bounds", "results"):
                page.locator("#columns").get_by_label(name, exact=True).uncheck()
            page.wait_for_function(
                "[...document.querySelectorAll('#kappa-table [role=columnheader]')]"
                ".every(h => !['κ bounds', 'results'].includes(h.innerText.trim()))",
                timeout=20_000)
            shown = page.eval_on_selector_all(
                "#kappa-table [role=columnheader]", "hs => hs.map(h => h.innerText.trim())")
            assert shown == [h for h in headers if h not in ("κ bounds", "results")], shown
            for name in ("κ bounds", "results"):
                page.locator("#columns").get_by_label(name, exact=True).check()
            page.wait_for_function(
                f"document.querySelectorAll('#kappa-table [role=columnheader]').length === "
                f"{len(headers)}", timeout=20_000)

            page.locator("#model-filter").get_by_label("lstm").check()
            page.wait_for_function(
                "document.querySelector('#kappa-table [role=grid]')"
                ".getAttribute('aria-rowcount') === '3'", timeout=20_000)
            assert _models_shown(page) == ["lstm", "lstm"]

            page.locator("#model-filter").get_by_label("all").check()  # model: all again
            page.get_by_placeholder("any cell").fill("S_5")
            page.wait_for_function(
                "document.querySelector('#kappa-table [role=grid]')"
                ".getAttribute('aria-rowcount') === '2'", timeout=20_000)
            assert _models_shown(page) == ["dense_ssm"]
        finally:
            browser.close()


def test_the_validation_filter_keeps_one_rules_rows(tmp_path):
    """Over a folder of each validation rule, the κ tab's validation filter shows one rule's
    rows: a κ of one rule is no measure of the other's."""
    from hf_induction.hub.space import write_space

    write_results(tmp_path / "disjoint")
    write_results(tmp_path / "within", validation="in-distribution")
    space = write_space([tmp_path / "disjoint", tmp_path / "within"], tmp_path / "space")
    with running_app(space, tmp_path) as url, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = _kappa_tab(browser, url)
            assert _row_count(page) == 10
            headers = page.eval_on_selector_all(
                "#kappa-table [role=columnheader]", "hs => hs.map(h => h.innerText.trim())")
            page.locator("#validation-filter").get_by_label("in-distribution").check()
            page.wait_for_function(
                "document.querySelector('#kappa-table [role=grid]')"
                ".getAttribute('aria-rowcount') === '6'", timeout=20_000)
            assert _column(page, headers.index("validation")) == ["in-distribution"] * 5
            assert all(s.endswith("within") for s in _column(page, headers.index("results")))
            screenshot(page, tmp_path, "space_validation_filter.png")
        finally:
            browser.close()
