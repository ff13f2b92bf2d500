"""A CV from the profile: ``<prefix>/people/<slug>/cv`` (a print-ready page) and ``cv.pdf``
(the same content as a PDF, made by WeasyPrint when it is installed). Everything in it comes
from the profile, in the owner's order, filtered by what the viewer may see (the same
:func:`~directory.services.profiles.load_profile` as the profile page). Which sections it holds
is the owner's choice, saved from the editor (``Person.cv_sections``: which sections and
their order); the page can still take a one-off choice (``?section=a&section=b``: those
sections in that order; a plain form, no JavaScript)."""

from __future__ import annotations

import base64
from datetime import date
from typing import Any

from flask import Response, abort, current_app, redirect, render_template, request, url_for

from directory import models as m
from directory.db import get_session
from directory.formats.pdf import html_to_pdf, pdf_available
from directory.i18n import gettext as _
from directory.resources import resource_dir
from directory.services.access import can_edit_person
from directory.services.identity import current_viewer
from directory.services.kinds import PERSON
from directory.services.operations import people
from directory.services.profiles import load_profile
from directory.services.unit_of_work import current_unit_of_work
from directory.web import forms
from directory.web.blueprint import blueprint
from directory.web.conflicts import on_conflict
from directory.web.outcomes import flash_outcome
from directory.web.page_cache import cached_page
from directory.web.views.editing import (
    editable_person_or_abort,
    editor_url,
    render_conflict,
    render_edit_form,
)
from directory.web.views.profile import get_person_or_404

#: The CV's sections, in their default order.
CV_SECTIONS = m.CV_SECTIONS


#: A WSGI environ key (no HTTP header can set one) with which ``flask directory cv`` asks for a
#: PDF of any length: it holds no web worker.
NO_SIZE_LIMIT = "directory.cv_pdf_no_size_limit"


def saved_sections(person: m.Person) -> list[str]:
    """The owner's choice of sections, in their order (names no longer known are skipped);
    every section in the default order when the owner has not chosen."""
    known = [name for name, _ in CV_SECTIONS]
    if person.cv_sections is None:
        return known
    return [name for name in person.cv_sections if name in known]


def chosen_sections(person: m.Person) -> list[str]:
    """The sections asked for in the query, for this once, in the order asked
    (``?section=awards&section=education`` puts awards first; unknown names and repeats are
    ignored); the owner's saved choice when none is asked for. The page's form lists the
    sections shown first, in their order, so submitting it keeps that order."""
    known = {name for name, _ in CV_SECTIONS}
    asked = [name for name in request.args.getlist("section") if name in known]
    return list(dict.fromkeys(asked)) or saved_sections(person)


def _context(slug: str) -> dict[str, Any]:
    person = get_person_or_404(slug)
    profile = load_profile(get_session(), person, current_viewer(), date.today())
    sections = chosen_sections(person)
    labels = dict(CV_SECTIONS)
    # The page's checkboxes: the sections shown first, in their order, then the others.
    offered = [(name, labels[name]) for name in sections]
    offered += [(name, label) for name, label in CV_SECTIONS if name not in sections]
    return {"person": person, "profile": profile, "sections": sections,
            "all_sections": offered, "pdf_available": pdf_available(),
            "can_edit": can_edit_person(current_viewer(), person)}  # fmt: skip


@blueprint.route("/people/<slug>/cv")
@cached_page
def cv(slug: str) -> str:
    return render_template("directory/cv.html", **_context(slug))


def _photo_data_url(photo: m.PersonPhoto | None) -> str | None:
    if photo is None:
        return None
    return f"data:{photo.mime_type};base64,{base64.b64encode(photo.data).decode('ascii')}"


@blueprint.route("/people/<slug>/cv.pdf")
def cv_pdf(slug: str) -> Response:
    if not pdf_available():
        abort(404)
    context = _context(slug)
    context["photo_src"] = _photo_data_url(context["person"].photo)
    html = render_template(
        "directory/_cv_pdf.html",
        **context,
        page_url=url_for("directory.cv", slug=slug, _external=True),
    )
    # The time WeasyPrint takes grows with the document: a huge profile must not hold the
    # worker for long (the photo is one image, whatever its data URL's length).
    size = len(html.encode("utf-8")) - len(context["photo_src"] or "")
    limit = current_app.config["DIRECTORY_CV_PDF_MAX_BYTES"]
    if size > limit and not request.environ.get(NO_SIZE_LIMIT):
        page = render_template(
            "directory/errors/cv_too_long.html", **context, size=size, limit=limit
        )
        return Response(page, status=422)
    css = [(resource_dir("static") / name).read_text(encoding="utf-8")
           for name in ("directory.css", "cv.css")]  # fmt: skip
    pdf = html_to_pdf(html, css, base_url=request.url_root)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{slug}-cv.pdf"'
    return response


def paper_layout_form(slug: str) -> tuple[m.Person, Any]:
    """The paper list and CV form of ``slug``'s person: stored values on a GET, what was
    sent on a POST."""
    person = editable_person_or_abort(slug)
    form = forms.PaperListForm()
    if request.method == "GET":
        form.load(person)
    return person, form


#: The page of the paper list and CV form.
LAYOUT_PAGE = {"template": "directory/edit/papers_and_cv.html"}


def _layout_conflict(_conflict: Any, slug: str) -> Any:
    person, form = paper_layout_form(slug)
    return render_conflict(form, kind=PERSON, current=person, person=person,
                           title=_("Paper list and CV"), action=request.path,
                           **LAYOUT_PAGE)  # fmt: skip


@blueprint.route("/people/<slug>/edit/papers-and-cv", methods=["GET", "POST"])
@on_conflict(_layout_conflict)
def edit_papers_and_cv(slug: str) -> Any:
    """The owner's layout of their papers and CV: whether selected papers are listed again
    below, and the CV's sections in their order. A change of the profile like any other:
    recorded, held for approval where the owner's changes need it, refused when stale."""
    person, form = paper_layout_form(slug)
    title = _("Paper list and CV")
    if not form.validate_on_submit():
        status = 400 if request.method == "POST" else 200
        return render_edit_form(form, person=person, title=title, action=request.path,
                                status=status, **LAYOUT_PAGE)  # fmt: skip
    outcome = people.set_paper_layout(
        current_unit_of_work(), person,
        repeat_selected=form.repeat_selected.data,
        unpublished_in_year=form.unpublished_in_year.data,
        cv_sections=form.chosen_sections(),
        base_version=form.base_version(),
    )  # fmt: skip
    flash_outcome(outcome, title)
    return redirect(editor_url(person, "profile"))
