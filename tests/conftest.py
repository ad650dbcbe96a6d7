# The local Hub stand-in (`hub_server` fixture) for every test folder.
pytest_plugins = ["hf_induction.testing.pytest_plugin"]
