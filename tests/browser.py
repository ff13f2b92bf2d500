"""Browser-test helpers (the fixtures ``live_server``, ``chromium`` and ``page`` are in
conftest.py): Debian's Chromium driven by Playwright, never a downloaded browser; a failing
page keeps a screenshot under ``test-artifacts/``."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def keep_screenshot(page, request) -> Path:
    """Save the page as it is under test-artifacts/, named after the test."""
    ARTIFACTS.mkdir(exist_ok=True)
    name = "".join(c if c.isalnum() else "-" for c in request.node.nodeid)[-120:]
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
