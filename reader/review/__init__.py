"""The review of a pin move in `reader serve` (`/review/`): one screen per flagged note, surest
first, with its words, its old and new code side by side, and Accept, Edit, Re-anchor and Skip.

`gather` (in `reader serve`'s process, after each build and check) -> `Review` (`model`, as JSON)
-> `web` (in its HTTP process: the page, `assets/`, the state and the actions) -> `act` (the
writes: `anchoring` says what, `reader.annotations.accept.edit_notes` changes the YAML text,
comments and order kept).
"""
