import atexit
import os
import shutil
import sys
import tempfile

import pytest

# `datasets` caches a local folder under its basename and answers a later folder of the same
# name (another test run's tmp "modadd/") from that cache. A cache of this session's own keeps
# every load_dataset honest; it is set before `datasets` is imported, and subprocesses inherit it.
_CACHE = tempfile.mkdtemp(prefix="hf-induction-datasets-cache-")
os.environ["HF_DATASETS_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

# One torch thread per process. `pytest -n auto` runs a process per core, and the commands
# the tests launch run beside them: at torch's default (a thread per core in each) the cores
# are oversubscribed, and OpenMP's waiting threads made tiny ops 10-100x slower (a 0.15 s model
# test took 16 s in the full suite). Set before torch is imported; subprocesses inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# The local Hub stand-in (`hub_server` fixture) for every test folder.
pytest_plugins = ["tests.hub_standin.pytest_plugin"]


@pytest.fixture(autouse=True)
def torch_threads_kept():
    """A command line run in this process sets torch's thread count for its search; each test
    starts from the process's own, as it would alone (bitwise comparisons with a fresh
    process depend on it)."""
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    yield
    if threads is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


# The files whose tests take longest (seconds on a 2-core machine, `--durations`), run first.
# pytest-xdist's `--dist loadfile` hands whole files to whichever worker is free, in collection
# order; a long file collected last (the stock trainers, the harness) left one worker alone for
# a minute at the end. Longest first, the two workers finish together.
SLOW_FILES = (
    "tests/runner/test_reliability.py",
    "tests/training/test_stock_trainers.py",
    "tests/runner/test_schedule.py",
    "tests/runner/test_push.py",
    "tests/package/test_wheel.py",
    "tests/commands/test_cli.py",
    "tests/runner/test_device_check.py",
    "tests/results/test_published_folders.py",
    "tests/tasks/test_limits.py",
    "tests/docs/test_doc_python.py",
    "tests/hub/test_hub_standin_clients.py",
    "tests/hub/test_hub_checkpoint.py",
    "tests/hub/test_hub_space.py",
    "tests/runner/test_tracking.py",
    "tests/lm_eval_tasks/test_lm_eval_tasks.py",
    "tests/runner/test_pretrained.py",
    "tests/models/test_remote_code.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(SLOW_FILES)}
    # A stable sort: each file's tests stay together and in their order.
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
