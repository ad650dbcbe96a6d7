import atexit
import os
import shutil
import tempfile

# `datasets` caches a local folder under its basename and answers a later folder of the same
# name (another test run's tmp "modadd/") from that cache. A cache of this session's own keeps
# every load_dataset honest; it is set before `datasets` is imported, and subprocesses inherit it.
_CACHE = tempfile.mkdtemp(prefix="hf-induction-datasets-cache-")
os.environ["HF_DATASETS_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

# The local Hub stand-in (`hub_server` fixture) for every test folder.
pytest_plugins = ["tests.hub_standin.pytest_plugin"]
