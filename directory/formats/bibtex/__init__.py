"""BibTeX import and export for publication lists, free of any web framework.

One module per part, each importing only those below it:

* :mod:`.split` splits a well-formed file into bibtexparser's blocks (quickly);
* :mod:`.values` evaluates field values (braces, quotes, ``@string`` macros, ``#``);
* :mod:`.latex` decodes LaTeX markup to Unicode;
* :mod:`.authors` splits name lists and names into their parts;
* :mod:`.entries` maps one entry's fields to a publication (the interchange dict);
* :mod:`.crossref` fills in what an entry inherits (``crossref``, ``@xdata``);
* :mod:`.parse` reads a whole file (``parse_bibtex``) into :mod:`.results`;
* :mod:`.keys` makes citation keys; :mod:`.export` writes publications back as BibTeX.

CSL-JSON is :mod:`directory.formats.csl`; DOIs and arXiv ids :mod:`directory.formats.identifiers`.
Import each name from the module that defines it.
"""
