"""The site's recipe: its steps (`generate.py`), their schedule and workers, the page cache, the page kinds' protocol and registry."""
