"""The article pages: the prose, then each pinned file it reads with its notes."""
