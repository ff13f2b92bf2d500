"""A CV from the profile: ``<prefix>/people/<slug>/cv`` (a print-ready page) and ``cv.pdf``
(the same content as a PDF, made by WeasyPrint when it is installed). Everything in it comes
from the profile, in the owner's order, filtered by what the viewer may see (the same
:func:`~directory.services.profiles.load_profile` as the profile page). Which sections it holds
is chosen on the page (``?section=...``, a plain form, no JavaScript)."""

from __future__ import annotations

import base64
from datetime import date
from typing import Any

from flask import Response, abort, render_template, request, url_for

from directory import models as m
from directory.db import get_session
from directory.formats.pdf import html_to_pdf, pdf_available
from directory.models.vocabularies import N_
from directory.resources import resource_dir
from directory.services.cache import cached_page
from directory.services.identity import current_viewer
from directory.services.profiles import load_profile
from directory.web.blueprint import blueprint
from directory.web.views.profile import get_person_or_404

#: The CV's sections, in the order they print.
CV_SECTIONS = (
    ("interests", N_("Research interests")),
    ("education", N_("Education")),
    ("experience", N_("Experience")),
    ("publications", N_("Publications")),
    ("awards", N_("Awards and honours")),
    ("funding", N_("Funding")),
    ("teaching", N_("Teaching")),
    ("service", N_("Service")),
    ("students", N_("Students advised")),
)


def chosen_sections() -> list[str]:
    """The sections asked for in the query (unknown names ignored); all when none is."""
    known = [name for name, _ in CV_SECTIONS]
    asked = [name for name in request.args.getlist("section") if name in known]
    return asked or known


def _context(slug: str) -> dict[str, Any]:
    person = get_person_or_404(slug)
    profile = load_profile(get_session(), person, current_viewer(), date.today())
    return {"person": person, "profile": profile, "sections": chosen_sections(),
            "all_sections": CV_SECTIONS, "pdf_available": pdf_available()}  # fmt: skip


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
    html = render_template(
        "directory/_cv_pdf.html",
        **context,
        photo_src=_photo_data_url(context["person"].photo),
        page_url=url_for("directory.cv", slug=slug, _external=True),
    )
    css = [(resource_dir("static") / name).read_text(encoding="utf-8")
           for name in ("directory.css", "cv.css")]  # fmt: skip
    pdf = html_to_pdf(html, css, base_url=request.url_root)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{slug}-cv.pdf"'
    return response
