"""Extraction: what the pinned source defines, references and registers."""
