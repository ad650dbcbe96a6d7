"""The leaderboard Space in headless Chromium, built as it is deployed (`hf-induction space`):
the page shows the rows of a known results folder, a filter narrows them, sorting by κ
reorders them, the figures are whole, About and Citation are there, and a screenshot is
kept (tmp_path, and HF_INDUCTION_SCREENSHOTS if set) for a person to look at.

Needs gradio, playwright (the Python package; no `playwright install`) and Debian's chromium.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from _results_fixture import CHECKPOINT_REPO, write_results

pytest.importorskip("gradio")
sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def space_url(tmp_path):
    from hf_induction.hub.space import write_space

    write_results(tmp_path / "results")
    space = write_space([tmp_path / "results"], tmp_path / "space")
    port = _free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf"), "MPLCONFIGDIR": str(tmp_path / "mpl")}
    log = open(tmp_path / "app.log", "w")
    proc = subprocess.Popen([sys.executable, str(space / "app.py")], env=env, cwd=tmp_path,
                            stdout=log,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the app did not start:\n" + (tmp_path / "app.log").read_text())
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


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


def screenshot(page, tmp_path, name: str) -> None:
    """Keep a full-page screenshot for a person: in tmp_path, and HF_INDUCTION_SCREENSHOTS."""
    page.screenshot(path=str(tmp_path / name), full_page=True)
    if os.environ.get("HF_INDUCTION_SCREENSHOTS"):
        target = Path(os.environ["HF_INDUCTION_SCREENSHOTS"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / name, target / name)


def _row_count(page) -> int:
    return int(page.get_attribute("#kappa-table [role=grid]", "aria-rowcount")) - 1  # - header


def test_space_table_loads_and_filters(space_url, tmp_path):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(space_url, wait_until="domcontentloaded")
            page.wait_for_selector("#kappa-table [role=grid]", timeout=30_000)
            page.wait_for_function(
                "document.querySelector('#kappa-table')?.innerText?.includes('dense_ssm')",
                timeout=30_000,
            )
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
            protocols = _column(page, headers.index("protocol"))
            assert all(p.startswith("10 steps, 1 lr × 2 seeds") for p in protocols), protocols
            checkpoints = _column(page, headers.index("checkpoint"))
            assert sorted(checkpoints) == sorted([CHECKPOINT_REPO] + ["—"] * 4), checkpoints
            assert page.locator(f"#kappa-table a[href='https://huggingface.co/{CHECKPOINT_REPO}']"
                                ).count() >= 1
            assert page.locator("text=κ leaderboard").first.is_visible()
            # Ranked by κ or its bound; sorting that column ascending reverses the rows.
            assert _column(page, 6) == ["4", "4", "2", "0.687", "0.5"]
            header = page.locator("#kappa-table [role=columnheader]").nth(6)
            header.click()
            header.locator("button[aria-label='Open cell menu']").click()
            page.get_by_role("menuitem", name="Sort ascending").click()
            page.wait_for_function(
                "document.querySelector('#kappa-table [role=row]:nth-child(2)')", timeout=10_000)
            page.wait_for_timeout(500)
            assert _column(page, 6) == ["0.5", "0.687", "2", "4", "4"]
            assert _models_shown(page)[:2] == ["gpt2", "gpt2"]
            header.click()
            header.locator("button[aria-label='Open cell menu']").click()
            page.get_by_role("menuitem", name="Clear sort").click()
            page.wait_for_timeout(500)
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
            page.get_by_role("tab", name="Leaderboard").click()

            # Columns a visitor picks: unticking two hides them, ticking them shows them again.
            for name in ("κ range", "results"):
                page.locator("#columns").get_by_label(name, exact=True).uncheck()
            page.wait_for_function(
                "[...document.querySelectorAll('#kappa-table [role=columnheader]')]"
                ".every(h => !['κ range', 'results'].includes(h.innerText.trim()))",
                timeout=20_000)
            shown = page.eval_on_selector_all(
                "#kappa-table [role=columnheader]", "hs => hs.map(h => h.innerText.trim())")
            assert shown == [h for h in headers if h not in ("κ range", "results")], shown
            for name in ("κ range", "results"):
                page.locator("#columns").get_by_label(name, exact=True).check()
            page.wait_for_function(
                f"document.querySelectorAll('#kappa-table [role=columnheader]').length === "
                f"{len(headers)}", timeout=20_000)

            page.get_by_label("lstm").first.check()
            page.wait_for_function(
                "document.querySelector('#kappa-table [role=grid]')"
                ".getAttribute('aria-rowcount') === '3'", timeout=20_000)
            assert _models_shown(page) == ["lstm", "lstm"]

            page.get_by_label("all").nth(2).check()  # model: all again
            page.get_by_placeholder("any cell").fill("S_5")
            page.wait_for_function(
                "document.querySelector('#kappa-table [role=grid]')"
                ".getAttribute('aria-rowcount') === '2'", timeout=20_000)
            assert _models_shown(page) == ["dense_ssm"]
        finally:
            browser.close()
