"""What a harvest source answers, in one shape for every source (ORCID, OpenAlex, Crossref,
DBLP, arXiv, Semantic Scholar): parsing each service's documented JSON or XML into
:class:`HarvestedWork` is pure and lives here, one module per source; fetching it lives in
``directory.services.harvest.sources``. Matching, the claim queue and the runner read only
these records."""
