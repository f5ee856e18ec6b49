"""Rendering: pygments highlighting (once per file), safe Markdown, jinja2 templates, pages."""
