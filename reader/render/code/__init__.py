"""The code view: annotated code (highlighting, token runs, notes beside lines, cards, outline, scopes)."""
