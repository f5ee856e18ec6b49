"""Moving a pin and reporting what the move does: `Change` records, their computation and printers."""
