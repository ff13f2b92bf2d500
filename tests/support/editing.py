"""Helpers for the editing tests: forms carry Flask-WTF CSRF tokens, which these mint for the
test client's session exactly as Flask-WTF does, so the tests post real, protected forms."""

from __future__ import annotations

import secrets
from typing import Any

from itsdangerous import URLSafeTimedSerializer


def csrf_token(client) -> str:
    with client.session_transaction() as sess:
        raw = sess.setdefault("csrf_token", secrets.token_hex(20))
    return URLSafeTimedSerializer(client.application.secret_key, salt="wtf-csrf-token").dumps(raw)


def post(client, url: str, data: dict[str, Any] | None = None, **kw: Any):
    """POST a form with a valid CSRF token."""
    payload = {"csrf_token": csrf_token(client), **(data or {})}
    return client.post(url, data=payload, **kw)
