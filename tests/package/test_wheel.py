"""The package as a user gets it: the wheel built from this tree, installed (not editable) into
a fresh venv, run from a folder outside the repository through its console script.

Every command a user runs after ``pip install`` is run once: build-datasets and then
``load_dataset`` on what it wrote, a small search on two task families, the leaderboard over
both folders, the Space (its app answers on its port) and a push to the local Hub stand-in.
The venv sees the installed torch and the other dependencies through
``--system-site-packages`` (nothing is downloaded); each step checks that what it imports
is the wheel's copy of the package, never the checkout's.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.hub_standin.hub import HubServer, client_env

# End to end: builds the wheel and runs it from a fresh virtual environment.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# Small budgets: a search of a few seconds on each family.
FAST = ["--max-steps", "120", "--eval-every", "20", "--lrs", "0.03", "--seeds", "10",
        "--n-start", "2", "--no-progress"]
SEARCHES = {
    "modadd": ["--dataset", "modadd", "--config", "acot_L3_m3", "--kappa"],
    "copy": ["--dataset", "copy", "--config", "UF_L3_V12"],
}


def _run(args: list[str], cwd: Path, env: dict, timeout: float = 300) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of what the package is made of: the checkout's build/
    folder keeps the files of earlier builds, and setuptools would put modules since moved
    out of the package into the wheel from there."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "hf_induction", source / "hf_induction",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp / "dist"), str(source)], check=True, capture_output=True,
                   timeout=300)
    return next((tmp / "dist").glob("hf_induction-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel):
    """(bin folder of the venv, a work folder outside the repository, the environment)."""
    tmp = wheel.parents[1]
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(tmp / "venv")],
                   check=True, timeout=120)
    bin_dir = tmp / "venv" / "bin"
    # --ignore-installed: the checkout's editable install is visible through the system site
    # packages, and pip would call the requirement satisfied by it.
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--no-deps",
                    "--no-index", "--ignore-installed", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    work = tmp / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", HF_HUB_OFFLINE="1",
               OMP_NUM_THREADS="1", HF_HOME=str(tmp / "hf"), MPLCONFIGDIR=str(tmp / "mpl"),
               GRADIO_ANALYTICS_ENABLED="False")
    return bin_dir, work, env


def test_the_wheel_holds_the_product_not_the_test_and_benchmark_tools(wheel):
    with zipfile.ZipFile(wheel) as archive:
        files = archive.namelist()
    assert "hf_induction/commands/nstar.py" in files
    assert "hf_induction/templates/space/app.py" in files
    # Every lm-eval task, group and template file (the templates are named *_yaml, which only
    # their own package-data pattern ships).
    from hf_induction.lm_eval_tasks import FOLDER

    tasks = {f"hf_induction/lm_eval_tasks/{p.name}" for p in FOLDER.iterdir() if p.is_file()}
    assert any(t.endswith("_copy_template_yaml") for t in tasks) and tasks <= set(files)
    # The Hub stand-in lives in tests/hub_standin/, the benchmarks in bench/ (with the
    # Trainer baseline, the curve replay and the Dense-SSM timing they alone use).
    moved_out = ("hf_induction/testing/", "hf_induction/models/dense_ssm/bench.py",
                 "hf_induction/training/hf_trainer_baseline.py",
                 "hf_induction/training/replay.py")
    assert not [f for f in files if f.startswith(moved_out) or "/bench" in f]
    assert not [f for f in files if not f.startswith(("hf_induction/", "hf_induction-"))]


def test_the_venv_imports_the_wheel_not_the_checkout(installed):
    bin_dir, work, env = installed
    where = _run([str(bin_dir / "python"), "-c",
                  "import hf_induction, hf_induction.templates as t; print(hf_induction.__file__);"
                  "print(t.template('space', 'app.py'))"], work, env).split()
    venv = bin_dir.parent.resolve()
    for path in where:
        assert Path(path).resolve().is_relative_to(venv), path
        assert not Path(path).resolve().is_relative_to(ROOT), path


def test_the_readme_main_command_and_the_module_form_run_from_the_wheel(installed):
    from tests.commands.test_usage_names import readme_main_command

    bin_dir, work, env = installed
    # The README's first command as written (its flags parsed, then --help), and the module
    # form that `accelerate launch -m` and `torchrun -m` start.
    for command in (readme_main_command(), [str(bin_dir / "python"), "-m", "hf_induction",
                                            "nstar"]):
        out = _run([*command, "--help"], work, env)
        assert out.startswith("usage: hf-induction nstar "), out[:200]


def test_build_datasets_then_load_dataset(installed):
    bin_dir, work, env = installed
    out = _run(["hf-induction", "build-datasets", "--dataset", "modadd", "--configs",
                "acot_L4", "cot_L3_uniform", "--train-size", "50", "--out", "ds"], work, env)
    assert "2 configs" in out
    rows = _run([str(bin_dir / "python"), "-c",
                 "from datasets import load_dataset\n"
                 "ds = load_dataset('ds', 'acot_L4')\n"
                 "print(ds['train'].num_rows, ds['train'][0]['labels'][-1])"], work, env).split()
    assert rows[0] == "50"
    # The card is the package's template, filled in.
    card = (work / "ds" / "README.md").read_text()
    assert "$" not in card.split("```")[0] and "acot_L4" in card


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def searched(installed):
    """Two results folders, one search each on two task families, by the wheel's command."""
    bin_dir, work, env = installed
    printed = {}
    for family, args in SEARCHES.items():
        printed[family] = _run(["hf-induction", "nstar", *args, "--model", "dense_ssm", *FAST,
                                "--out", f"results_{family}"], work, env)
    return printed


def test_a_search_on_two_families(installed, searched):
    _, work, _ = installed
    for family in SEARCHES:
        folder = work / f"results_{family}"
        assert (folder / "protocol.json").exists(), family
        rows = (folder / "nstar" / "rank0.jsonl").read_text().splitlines()
        assert rows and all(f'"dataset":"{family}"' in row for row in rows), family
    assert (work / "results_modadd" / "kappa" / "rank0.jsonl").read_text().strip()


def test_the_leaderboard_over_both_folders(installed, searched):
    _, work, env = installed
    _run(["hf-induction", "leaderboard", "results_modadd", "results_copy", "--out", "lb"],
         work, env)
    text = (work / "lb" / "leaderboard.md").read_text()
    assert "results_modadd" in text and "results_copy" in text
    assert "UF_L3_V12" in text and "acot_L3_m3" in text


def test_the_space_answers_on_its_port(installed, searched):
    bin_dir, work, env = installed
    _run(["hf-induction", "space", "results_modadd", "results_copy", "--out", "sp"], work, env)
    port = _free_port()
    log = open(work / "app.log", "w")
    app = subprocess.Popen([str(bin_dir / "python"), "sp/app.py"], cwd=work, stdout=log,
                           stderr=subprocess.STDOUT,
                           env={**env, "GRADIO_SERVER_NAME": "127.0.0.1",
                                "GRADIO_SERVER_PORT": str(port)})
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                break
            except OSError:
                if app.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("the Space did not start:\n" + (work / "app.log").read_text())
                time.sleep(0.5)
        assert b"gradio" in page.lower()
    finally:
        app.terminate()
        app.wait(timeout=30)
        log.close()


def test_a_push_to_the_hub_stand_in(installed, searched, tmp_path):
    _, work, env = installed
    server = HubServer(tmp_path / "hub", port=0).start()
    try:
        push_env = client_env(server.url, home=tmp_path, base=env)
        out = _run(["hf-induction", "push", "results_modadd", "user/induction-results",
                    "--create"], work, push_env)
        assert "user/induction-results" in out
        pulled = _run(["python", "-c",
                       "from huggingface_hub import hf_hub_download\n"
                       "print(open(hf_hub_download('user/induction-results', 'nstar/rank0.jsonl',"
                       " repo_type='dataset')).read())"], work, push_env)
        assert pulled.strip() == (work / "results_modadd" / "nstar" / "rank0.jsonl").read_text(
        ).strip()
    finally:
        server.stop()
