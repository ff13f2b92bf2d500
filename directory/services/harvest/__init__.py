"""The publication harvest: works found for people at outside sources (ORCID, OpenAlex,
Crossref, DBLP, arXiv, Semantic Scholar). Fetching is :mod:`.sources`; parsing each answer is
pure (:mod:`directory.formats.harvest`)."""
