"""Showing a results folder: its report (``tables.md``: N*, κ, out of distribution, length
generalisation, N* against the group size, compute, attention heads, and how the protocol
departs from the paper's).

The columns of every table and the spelling of numbers are `results.render`'s, which the
command line, the leaderboard and the Space share; the figures are `hub.plots` and
`hub.head_plots`'. Nothing here trains or searches: it reads the folder's rows.
"""
