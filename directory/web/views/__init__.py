"""The directory's views, one module per part of the site; importing this package registers
every route on :data:`directory.web.blueprint.blueprint`."""

from __future__ import annotations

from directory.web import conflicts  # noqa: F401 - registers the one conflict handler
from directory.web.api import views as api  # noqa: F401 - registers the API's routes
from directory.web.blueprint import blueprint
from directory.web.views import (  # noqa: F401 - registers routes
    admin,
    alumni,
    auth,
    claims,
    common,
    cv,
    editing,
    fragments,
    listing,
    news,
    onboarding,
    paper_order,
    papers,
    profile,
    publications,
    recruiting,
    reports,
    search,
    sitemap,
)

__all__ = ["blueprint"]
