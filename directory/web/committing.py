"""Every view of the blueprint runs inside the request's unit of work: its writes are committed
once when it succeeds and rolled back when it fails (:mod:`directory.services.unit_of_work`).
:class:`directory.web.blueprint.DirectoryBlueprint` wraps each view function with
:func:`committing`, so a route added later cannot forget to."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import g, make_response, request
from sqlalchemy.exc import OperationalError

from directory.db import read_only_from_now
from directory.services.unit_of_work import SaveNotCommitted, current_unit_of_work, is_busy


class AfterCommit:
    """A view's answer that is made once the request's writes are committed and the
    after-commit actions have run (the e-mails among them): the page that tells what the mail
    server answered. ``render()`` returns what a view returns."""

    def __init__(self, render: Callable[[], Any]) -> None:
        self.render = render


def committing(view: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a view so that its request's writes are committed once when it succeeds, and
    rolled back when it returns an error. An exception propagates with nothing committed."""

    @functools.wraps(view)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return _run_and_commit(view, args, kwargs)
        except OperationalError as error:
            if request.method in ("GET", "HEAD") or not is_busy(error):
                raise  # an outage: the 503 page
            session = g.get("_directory_session")
            if session is not None:
                session.rollback()
            read_only_from_now()  # the conflict page only reads
            raise SaveNotCommitted() from error

    return run


def _run_and_commit(view: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    answer = view(*args, **kwargs)
    deferred = isinstance(answer, AfterCommit)  # made once committed, whatever it says
    response = None if deferred else make_response(answer)
    if g.get("_directory_session") is None:
        return response  # the view never touched the database
    uow = current_unit_of_work()
    if not (deferred or uow.has_writes or uow.has_pending_actions):
        return response  # nothing to commit; the session closes at teardown
    if deferred or response.status_code < 400:
        uow.commit()
    else:
        uow.rollback()
    return make_response(answer.render()) if deferred else response
