"""Rewrite the shipped lm-evaluation-harness task files from `utils.FAMILIES`."""

from . import write_tasks

for path in write_tasks():
    print(path)
