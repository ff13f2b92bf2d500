"""formats/csp.py: a policy with a nonce, and the inline code a policy blocks."""

from __future__ import annotations

import pytest

from directory.formats.csp import blocked_inline_code, inline_allowed, policy_with_nonce

pytestmark = pytest.mark.engine_independent


def test_the_nonce_goes_into_script_and_style_src() -> None:
    policy = policy_with_nonce("default-src 'self'; script-src 'self'; object-src 'none'", "n1")
    assert policy == (
        "default-src 'self'; script-src 'self' 'nonce-n1'; object-src 'none'; "
        "style-src 'self' 'nonce-n1'"
    )
    assert policy_with_nonce(policy, "n1") == policy  # once


def test_inline_code_without_the_nonce_is_found() -> None:
    html = (
        "<html><head><style nonce='n1'>a{}</style><style>b{}</style>\n"
        '<script type="application/ld+json">{}</script><script src="/x.js"></script>\n'
        "<script nonce='n2'>x()</script></head><body onload='go()'></body></html>"
    )
    found = [(code.what, code.line) for code in blocked_inline_code(html, "n1")]
    assert found == [("<style>", 1), ("<script>", 3), ("onload=", 3)]
    assert [code.what for code in blocked_inline_code(html, None)] == [
        "<style>", "<style>", "<script>", "onload="
    ]  # fmt: skip


def test_unsafe_inline_allows_it_unless_a_nonce_is_named() -> None:
    assert inline_allowed("script-src 'self' 'unsafe-inline'", "<script>")
    assert not inline_allowed("script-src 'self' 'unsafe-inline' 'nonce-x'", "<script>")
    assert not inline_allowed("default-src 'self'", "<style>")
    assert inline_allowed("default-src 'self' 'unsafe-inline'", "<style>")
    assert inline_allowed("", "onclick=")
