"""Search: each page's entries and the site's index in pieces."""
