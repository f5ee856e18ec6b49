"""The diff pages: one per pinned file changed since the previous edition."""
