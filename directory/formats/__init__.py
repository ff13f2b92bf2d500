"""Formats: the directory's records as BibTeX, CSL-JSON, ORCID, the interchange document,
JSON-LD, Atom, the API's representations, SVG charts and Markdown. No web module is imported."""
