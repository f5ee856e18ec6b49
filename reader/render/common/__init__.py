"""What every page kind uses: the renderers' model, URLs, links, Markdown, prose, templates, the pinned files as pages show them."""
