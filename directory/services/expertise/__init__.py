"""People ranked by what they work on (docs/search.md, "Who works on X?").

* :mod:`.model`: the sentence-embedding model, loaded from the files its wheel ships (the
  optional extra ``expertise``); without it every ranking is by keywords alone;
* :mod:`.texts`: what text stands for a paper and for a profile;
* :mod:`.vectors`: the stored vectors, written by the unit of work beside the search index,
  and the in-process matrix each worker compares questions against;
* :mod:`.ranking`: the keyword and the semantic ranking of people, fused, with the reasons.
"""
