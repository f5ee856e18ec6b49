"""The track's editions as one feature: the current one and the one before each recorded pin move
(`listing.py`: the list, an older edition's project read from git, `versions.json`), every page's
switcher and banner (`switcher.py`), the move records (`records.py`) and, loaded once at a build's
start, the previous edition with the files its last move changed (`past.py` over `previous.py` and
`filediffs.py`). Below `reader.render`, which renders from it; above `reader.move`."""

from reader.editions.blame import LineHistory, line_history
from reader.editions.filediffs import ChangedFile, FileDiff, Files
from reader.editions.listing import (
           VERSIONS_JSON,
           Edition,
           editions,
           older_edition,
           versions_json,
)
from reader.editions.past import Past, load_past
from reader.editions.previous import OldNote, Previous
from reader.editions.records import load_moves
from reader.editions.switcher import Switcher
from reader.move.record import FATES, MoveFile, MoveRecord, PinMove

__all__ = ["FATES", "VERSIONS_JSON", "ChangedFile", "Edition", "FileDiff", "Files", "LineHistory", "MoveFile",
           "MoveRecord", "OldNote", "Past", "PinMove", "Previous", "Switcher", "editions", "line_history",
           "load_moves", "load_past", "older_edition", "versions_json"]
