"""Public profile pages: ``<prefix>/people/<slug>`` and the person's photo."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Response, abort, current_app, render_template, request

from directory import models as m
from directory.db import get_session
from directory.services import profiles
from directory.services.access import can_edit_person, person_visible
from directory.services.department.filters import PageFilters
from directory.services.identity import current_viewer
from directory.services.profiles import load_profile, paper_page
from directory.web.blueprint import blueprint
from directory.web.page_cache import cached_page
from directory.web.structured import profile_page_jsonld
from directory.web.views.papers import shown_citations


def get_person_or_404(slug: str) -> m.Person:
    """Load a person by slug, 404 when missing or not visible to the viewer (a hidden profile
    is indistinguishable from a missing one)."""
    person = profiles.person_by_slug(get_session(), slug, "links", "areas", "photo")
    if person is None or not person_visible(current_viewer(), person):
        abort(404)
    return person


@blueprint.route("/people/<slug>")
@cached_page
def profile(slug: str) -> str:
    person = get_person_or_404(slug)
    viewer = current_viewer()
    fold = current_app.config["DIRECTORY_PROFILE_PUBLICATIONS"]
    data = load_profile(get_session(), person, viewer, date.today(), fold=fold)
    rows = [*data.selected_publications, *(row for g in data.publications for row in g.items)]
    # What the page shows, in its order, each paper once (the owner may list selected ones twice).
    papers, bibtex = shown_citations(list(dict.fromkeys(row.publication for row in rows)))
    return render_template(
        "directory/profile.html",
        profile=data,
        person=person,
        bibtex=bibtex,
        jsonld=profile_page_jsonld(person, data.education, papers),
        can_edit=can_edit_person(viewer, person),
    )


@blueprint.route("/people/<slug>/publications")
@cached_page
def person_publications(slug: str) -> str:
    """The complete list of a person's papers, as the profile lists them, a page at a time
    (a bad page number shows the first page; one past the last shows the last, saying so)."""
    person = get_person_or_404(slug)
    viewer = current_viewer()
    filters = PageFilters.from_args(request.args)
    size = current_app.config["DIRECTORY_PAGE_SIZE"]
    page = paper_page(get_session(), person, viewer, filters.page, size)
    return render_template(
        "directory/person_publications.html",
        person=person,
        page=page,
        filters=filters,
        page_args=lambda n: {"slug": person.slug, **filters.with_page(n)},
        can_edit=can_edit_person(viewer, person),
    )


@blueprint.route("/people/<slug>/photo")
def photo(slug: str) -> Response:
    person = get_person_or_404(slug)
    if person.photo is None:
        abort(404)
    etag = person.photo.etag
    if request.if_none_match and etag in request.if_none_match:
        return Response(status=304)
    response = Response(person.photo.data, mimetype=person.photo.mime_type)
    response.set_etag(etag)
    response.cache_control.public = person.visibility == "public"
    response.cache_control.max_age = 3600
    return response


#: The focal point's step, in percent: the stylesheet has a class for each multiple of it.
PHOTO_FOCUS_STEP = 5


def photo_focus(photo: Any) -> str:
    """The classes that keep ``photo``'s focal point in view wherever it is cropped to a square
    (profile, cards, CV, editor): as near the middle as the photo allows. The stylesheet turns
    them into ``object-position`` (a ``style`` attribute would be refused by the pages'
    Content-Security-Policy); ``photo`` is a PersonPhoto, or anything with its four values."""
    if photo is None:
        return ""
    x = _square_position(photo.focus_x, photo.width, photo.height)
    y = _square_position(photo.focus_y, photo.height, photo.width)
    return f"photo-focus photo-fx-{x} photo-fy-{y}"


def photo_point(photo: Any) -> str:
    """The classes placing a mark on the focal point itself, over the whole photo."""

    def step(value: int | None) -> int:
        value = 50 if value is None else min(100, max(0, value))
        return round(value / PHOTO_FOCUS_STEP) * PHOTO_FOCUS_STEP

    return f"photo-fx-{step(photo.focus_x)} photo-fy-{step(photo.focus_y)}"


def _square_position(focus: int | None, length: int | None, other: int | None) -> int:
    """The ``object-position`` (percent, a multiple of PHOTO_FOCUS_STEP) along a side of
    ``length`` pixels that puts the point ``focus`` percent along it in the middle of a square
    box the photo covers (its ``other`` side fits the box). CSS aligns the image's p% with the
    box's p%: with the side ``r`` times the box, the point at ``f`` is centred by
    ``p = (f·r − ½) / (r − 1)``, kept within 0–100 (the photo's edge stops it)."""
    focus = 50 if focus is None else min(100, max(0, focus))
    if not length or not other or length <= other:
        return 50  # the side fits the box: nothing to move
    ratio = length / other
    position = (focus / 100 * ratio - 0.5) / (ratio - 1)
    return round(min(1.0, max(0.0, position)) * 100 / PHOTO_FOCUS_STEP) * PHOTO_FOCUS_STEP


def entry_partial(kind: str) -> Any:
    """The macros of an entry kind's partial (``directory/entries/<kind>.html``, or a host's
    file at that path), as ``{% import %}`` gives them: the profile calls two of each kind's,
    and an import in a macro costs ~60 us a call (Jinja compares the importing page's
    globals with the partial's each time), a tenth of a millisecond per kind."""
    return current_app.jinja_env.get_template(m.ENTRY_KINDS[kind].partial).module


@blueprint.record_once
def _photo_globals(state: Any) -> None:
    state.app.jinja_env.globals.update(
        directory_photo_focus=photo_focus,
        directory_photo_point=photo_point,
        directory_entry_partial=entry_partial,
    )
