"""A nonce for the host's inline code on directory pages.

Directory pages render inside the host's layout, under the directory's strict
Content-Security-Policy (DIRECTORY_CONTENT_SECURITY_POLICY), which blocks inline ``<script>``
and ``<style>``. A host template marks its own inline code with the response's nonce::

    <script nonce="{{ directory_csp_nonce() }}">…</script>

and that response's policy then names the nonce in ``script-src`` and ``style-src``. The nonce
is new for every response that uses it (drawn on first use, the same all through one
response); such a response is never kept in the page cache, since a stored page would carry
one nonce to many readers."""

from __future__ import annotations

import secrets

from flask import g

from directory.formats.csp import policy_with_nonce

#: Where a request keeps its nonce once drawn.
NONCE_KEY = "_directory_csp_nonce"


def csp_nonce() -> str:
    """This response's nonce (``directory_csp_nonce()`` in templates)."""
    nonce = g.get(NONCE_KEY)
    if nonce is None:
        nonce = secrets.token_urlsafe(18)
        setattr(g, NONCE_KEY, nonce)
    return nonce


def nonce_used() -> bool:
    """Whether this response's page used its nonce."""
    return NONCE_KEY in g


def response_policy(policy: str) -> str:
    """``policy`` for this response: with its nonce when the page used one."""
    nonce = g.get(NONCE_KEY)
    return policy_with_nonce(policy, nonce) if nonce else policy
