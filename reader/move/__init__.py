"""A pin move: `reader pin` moves a pin, `reader diff` reports what the move does (`Change` records, their computation and printers), `--record` keeps it."""
