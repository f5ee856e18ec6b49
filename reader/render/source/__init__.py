"""The source pages: one per pinned file."""
