# The Hub stand-in fixture (`hub_server`) for the tests in this folder.
from hf_induction.testing.pytest_plugin import hub_server  # noqa: F401
