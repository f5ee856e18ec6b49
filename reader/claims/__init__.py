"""Claims: runnable examples in the notes, checked at the pins (`reader check --run`, `reader diff`).

`env` finds or makes a Python environment with the pinned releases, `run` runs claims there in
child processes (`child.py`, stdlib only) with a time limit each and keeps their outcomes in
the cache, `track` gathers the track's claims and turns failures into located findings.
"""
