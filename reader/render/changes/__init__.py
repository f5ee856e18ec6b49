"""The 'What changed' pages: one per recorded pin move."""
