"""The directory's blueprint. Each module of :mod:`directory.web.views` registers its routes on
:data:`blueprint`; importing :mod:`directory.web.views` registers them all.

Every view function registered on it is wrapped by
:func:`directory.web.committing.committing`: the request's writes are committed once
when the view succeeds and rolled back when it fails, so no view commits, and a route added
later cannot forget to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint

from directory.resources import resource_dir
from directory.web.committing import committing


class DirectoryBlueprint(Blueprint):
    """A blueprint whose every view runs in the request's unit of work."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # One wrapper per view function: a function routed twice keeps one endpoint.
        self._wrapped: dict[Callable[..., Any], Callable[..., Any]] = {}

    def add_url_rule(
        self,
        rule: str,
        endpoint: str | None = None,
        view_func: Callable[..., Any] | None = None,
        **options: Any,
    ) -> None:
        if view_func is not None:
            view_func = self._wrapped.setdefault(view_func, committing(view_func))
        super().add_url_rule(rule, endpoint, view_func, **options)


blueprint = DirectoryBlueprint(
    "directory",
    __name__,
    template_folder=str(resource_dir("templates")),
    static_folder=str(resource_dir("static")),
    # Not "/static": mounted at the site root, that would be the host's own static route.
    static_url_path="/assets",
)
