"""Code generators: `python` (readable source, reference backend)."""
