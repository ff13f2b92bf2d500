"""The claim queue: works found for a person (by a harvest, or by a co-author's import
printing their name) become candidates with evidence and a score; the person, a delegate
or an admin accepts or rejects each, and a rejection sticks.

* :mod:`.evidence`: what tells a person's work from a namesake's, in codes and in words;
* :mod:`.queue`: a person's harvested works offered as candidates (matched against the
  directory's papers, the person's answers and the candidates already asked);
* :mod:`.harvest`: the runner (the sources' fetchers, the lock, the runs' records).
"""
