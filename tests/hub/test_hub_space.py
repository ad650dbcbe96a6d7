"""The leaderboard Space (model_cards/space/app.py) in headless Chromium: the page loads, shows
the rows of a known results folder, and a filter changes them.

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
from _results_fixture import write_results

pytest.importorskip("gradio")
sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")

APP = Path(__file__).resolve().parents[2] / "model_cards" / "space" / "app.py"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def space_url(tmp_path):
    write_results(tmp_path / "results")
    port = _free_port()
    env = {**os.environ, "HF_INDUCTION_RESULTS": str(tmp_path / "results"),
           "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf"), "MPLCONFIGDIR": str(tmp_path / "mpl")}
    log = open(tmp_path / "app.log", "w")
    proc = subprocess.Popen([sys.executable, str(APP)], env=env, cwd=tmp_path, stdout=log,
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


def _row_count(page) -> int:
    return int(page.get_attribute("#kappa-table [role=grid]", "aria-rowcount")) - 1  # - header


def test_space_table_loads_and_filters(space_url, tmp_path):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
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
            assert page.locator("text=κ leaderboard").first.is_visible()
            # the figures are there too
            assert page.locator("img").count() >= 4

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
