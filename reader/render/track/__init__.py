"""The outline's pages: home, the phases, the indexes and the nav."""
