"""A local stand-in for the Hugging Face Hub, for the tests: the server (`hub`), its command
line (``python -m tests.hub_standin``) and the ``hub_server`` fixture (`pytest_plugin`).

A test tool, not part of the installed package: it imports only the standard library (and
pytest, for the fixture). Nothing is imported here, so ``-m tests.hub_standin.hub`` runs the
server module once, as ``__main__``.
"""
