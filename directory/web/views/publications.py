"""Publication pages: the department's papers (``<prefix>/publications``, filtered, with a
papers-per-year chart), import with preview, a person's list of papers, exports of both, and
the admin's tools for shared records (merge, split, versions).

Import: ``<prefix>/me/publications/import`` (or ``/people/<slug>/publications/import`` for
someone one may edit) takes a .bib file, pasted BibTeX or an ORCID record, stores it as a
draft and redirects to the draft's preview. Confirming re-plans from the stored text (never
from what the browser sends back) and writes everything in one transaction.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, abort, current_app, flash, redirect, render_template, request, url_for
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    HiddenField,
    RadioField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import InputRequired, Optional

from directory import models as m
from directory.db import get_session
from directory.formats.bibtex.export import publications_to_bibtex
from directory.formats.bibtex.keys import make_citation_key
from directory.formats.charts import bar_chart
from directory.formats.csl import publication_to_csl
from directory.formats.orcid import normalise_orcid_id
from directory.i18n import format_number
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.models import ImportDraft
from directory.services import profiles, publication_reads
from directory.services.access import can_import_publications, can_manage_publication_records
from directory.services.changes import PENDING
from directory.services.department.filters import PageFilters
from directory.services.department.publications import PublicationFilters, publications_page
from directory.services.identity import current_viewer
from directory.services.importing import plan_source
from directory.services.operations import publications as paper_operations
from directory.services.orcid_records import OrcidFetchError, fetch_orcid_record
from directory.services.paging import Page
from directory.services.profiles import profile_publications
from directory.services.pubimport.decisions import (
    PlanRefused,
    decision_choices,
    resolve_decisions,
)
from directory.services.pubimport.drafts import create_draft, draft_expired
from directory.services.pubimport.plan import BULK_DECISIONS, STATUSES, ImportPlan
from directory.services.publications import (
    PublicationIndex,
    publication_data,
    publication_options,
)
from directory.services.unit_of_work import current_unit_of_work
from directory.web.blueprint import blueprint
from directory.web.csrf import DirectoryForm, csrf_failed
from directory.web.forms import url_field
from directory.web.outcomes import flash_outcome
from directory.web.page_cache import cached_page
from directory.web.views.profile import get_person_or_404

try:  # WTForms 3.3 deprecates (value, label) tuples in favour of SelectChoice.
    from wtforms.fields.choices import SelectChoice
except ImportError:  # pragma: no cover - older WTForms
    SelectChoice = None


def _choices(pairs: list[tuple[str, str]]) -> list[Any]:
    if SelectChoice is None:  # pragma: no cover
        return pairs
    return [SelectChoice(value, label) for value, label in pairs]


# --------------------------------------------------------------------------------------------
# Forms
# --------------------------------------------------------------------------------------------


class PublicationImportForm(DirectoryForm):
    """One source per import: a .bib file, pasted BibTeX, an ORCID record file or iD."""

    bibtex_file = FileField(_l("BibTeX file (.bib)"))
    bibtex_text = TextAreaField(_l("Or paste BibTeX"), validators=[Optional()])
    orcid_file = FileField(_l("ORCID record (JSON file)"))
    orcid_id = StringField(_l("Or your ORCID iD"), validators=[Optional()])
    base_url = url_field(_l("Site the file's relative links are on"))

    def validate(self, extra_validators: Any = None) -> bool:
        if not super().validate(extra_validators):
            return False
        given = [
            name
            for name in ("bibtex_file", "bibtex_text", "orcid_file", "orcid_id")
            if _has_value(getattr(self, name).data)
        ]
        if not given:
            self.bibtex_file.errors.append(
                _("Choose a file, paste BibTeX or give an ORCID record.")
            )
            return False
        if len(given) > 1:
            getattr(self, given[1]).errors.append(_("Import one source at a time."))
            return False
        return True


def _has_value(data: Any) -> bool:
    if hasattr(data, "filename"):
        return bool(data.filename)
    return bool(data and str(data).strip())


class PublicationListForm(DirectoryForm):
    """How the papers of one page of the manage list show on one person's profile: one form
    for the page, a checkbox per paper and flag. ``shown`` names the papers the form showed
    (a paper left unticked there is turned off; one not on the page is left alone)."""

    shown = SelectMultipleField(_l("Papers on this page"))
    selected = SelectMultipleField(_l("Selected"))
    hidden = SelectMultipleField(_l("Hidden from this profile"))

    def set_papers(self, uids: list[str]) -> None:
        """Only the person's own papers may be named."""
        for name in ("shown", "selected", "hidden"):
            self[name].choices = uids


class ConfirmImportBase(DirectoryForm):
    fingerprint = HiddenField()


class DiscardImportForm(DirectoryForm):
    pass


class PublicationMergeForm(DirectoryForm):
    other = StringField(_l("Record id of the other paper"), validators=[InputRequired()])


class PublicationVersionsForm(DirectoryForm):
    other = StringField(_l("Record id of the other version"), validators=[InputRequired()])
    direction = RadioField(
        _l("Which is the preprint?"),
        choices=_choices(
            [("this", "This paper is the preprint"), ("other", "The other is the preprint")]
        ),
        default="this",
        validators=[InputRequired()],
    )


class PublicationSplitForm(DirectoryForm):
    """The people to move onto a copy (checkbox values are person ids)."""


#: The order the preview shows its groups in (problems and questions first).
PREVIEW_ORDER = (
    "error", "duplicate", "new", "department", "on_profile", "repeat", "not_mine", "skipped",
)  # fmt: skip
#: Entries on one page of the preview.
PREVIEW_PAGE_SIZE = 200


def confirm_form_class(plan: ImportPlan) -> type[DirectoryForm]:
    """A confirm form: a choice per possible duplicate (or one for all of them), and, when
    some entries cannot be imported, the explicit "import the rest without them"."""

    class ImportConfirmForm(ConfirmImportBase):
        bulk = RadioField(
            _("Decide all possible duplicates at once"),
            choices=_choices([("", "Decide each one below"), *BULK_DECISIONS]),
            default="",
            validators=[Optional()],
        )
        skip_invalid = BooleanField(_("Import the rest, leaving out the entries that cannot be"))
        replace_bio = BooleanField(_("Replace my biography with the record's"))
        replace_interests = BooleanField(_("Add the record's keywords to my research interests"))

        def validate(self, extra_validators: Any = None) -> bool:
            if not super().validate(extra_validators):
                return False
            ok = True
            if plan.blocked and not self.skip_invalid.data:
                self.skip_invalid.errors.append(
                    _(
                        "Some entries cannot be imported: tick this to import the rest "
                        "without them, or fix the file."
                    )
                )
                ok = False
            for entry in plan.entries:
                field = self[f"decision-{entry.index}"] if entry.needs_decision else None
                if field is not None and not field.data and not self.bulk.data:
                    field.errors.append(
                        _("Choose what to do with this entry, or one choice for all above.")
                    )
                    ok = False
            return ok

        def decisions(self) -> dict[int, str]:
            chosen = {
                entry.index: self[f"decision-{entry.index}"].data or ""
                for entry in plan.entries
                if entry.needs_decision
            }
            return resolve_decisions(plan, chosen, self.bulk.data or None)

        def replace(self) -> list[str]:
            """The profile fields with text of their own the person lets the record change."""
            wanted = (("bio", self.replace_bio.data), ("interests", self.replace_interests.data))
            return [name for name, chosen in wanted if chosen and name in plan.person.optional]

    for entry in plan.entries:
        if entry.needs_decision:
            setattr(
                ImportConfirmForm,
                f"decision-{entry.index}",
                RadioField(
                    _("What is “%(title)s”?", title=entry.title),
                    choices=_choices(decision_choices(entry, plan)),
                    validators=[Optional()],
                ),
            )
    return ImportConfirmForm


# --------------------------------------------------------------------------------------------
# Import
# --------------------------------------------------------------------------------------------


def _person_for_import(slug: str) -> m.Person:
    person = get_person_or_404(slug)
    if not can_import_publications(current_viewer(), person):
        abort(403)
    return person


def _read_upload(storage: Any, limit: int) -> bytes | None:
    data = storage.read(limit + 1)
    return data if len(data) <= limit else None


def _decode(data: bytes) -> tuple[str | None, str | None]:
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, (
            f"The file is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); "
            "save it with UTF-8 encoding and upload it again."
        )


def _size_error(limit: int) -> str:
    mib = limit / (1024 * 1024)
    return _(
        "This is larger than the import limit of %(size)s MiB (%(bytes)s bytes).",
        size=format_number(round(mib, 2)),
        bytes=format_number(limit),
    )


def _source_from_form(form: PublicationImportForm) -> tuple[str, str, str | None] | None:
    """(kind, text, filename) of the submitted source, or None with the error on the field."""
    limit = current_app.config["DIRECTORY_IMPORT_MAX_BYTES"]
    if _has_value(form.bibtex_file.data) or _has_value(form.orcid_file.data):
        field = form.bibtex_file if _has_value(form.bibtex_file.data) else form.orcid_file
        data = _read_upload(field.data, limit)
        if data is None:
            field.errors.append(_size_error(limit))
            return None
        text, error = _decode(data)
        if error:
            field.errors.append(error)
            return None
        kind = "bibtex" if field is form.bibtex_file else "orcid"
        return kind, text, field.data.filename
    if _has_value(form.bibtex_text.data):
        text = form.bibtex_text.data
        if len(text.encode("utf-8")) > limit:
            form.bibtex_text.errors.append(_size_error(limit))
            return None
        return "bibtex", text, None
    orcid_id = normalise_orcid_id(form.orcid_id.data or "")
    if not current_app.config["DIRECTORY_ORCID_FETCH"]:
        form.orcid_id.errors.append(_("Fetching from ORCID is not enabled here; upload the file."))
        return None
    if orcid_id is None:
        form.orcid_id.errors.append(_("This is not an ORCID iD (like 0000-0002-1825-0097)."))
        return None
    try:
        data = fetch_orcid_record(
            orcid_id, current_app.config["DIRECTORY_ORCID_API_URL"], max_bytes=limit
        )
    except OrcidFetchError as exc:
        form.orcid_id.errors.append(
            _("%(problem)s; try again later or upload the file.", problem=exc)
        )
        return None
    text, error = _decode(data)
    if error:
        form.orcid_id.errors.append(error)
        return None
    return "orcid", text, f"ORCID {orcid_id}"


def build_plan(draft: ImportDraft, person: m.Person) -> ImportPlan:
    """Parse the draft's text and plan it against the database (no writes)."""
    limit = current_app.config["DIRECTORY_IMPORT_MAX_BYTES"]
    return plan_source(get_session(), person, draft.kind, draft.source, limit, draft.base_url)


@blueprint.route("/me/publications/import", methods=["GET", "POST"])
def my_publications_import() -> Any:
    viewer = current_viewer()
    if not viewer.is_authenticated:
        abort(403)
    if viewer.person_id is None:
        abort(404)
    person = profiles.person_by_id(get_session(), viewer.person_id)
    return publications_import(person.slug)


@blueprint.route("/people/<slug>/publications/import", methods=["GET", "POST"])
def publications_import(slug: str) -> Any:
    person = _person_for_import(slug)
    form = PublicationImportForm()
    if form.validate_on_submit():
        source = _source_from_form(form)
        if source is not None:
            kind, text, filename = source
            session = get_session()
            draft = create_draft(
                session, person, current_viewer().key, kind, text, filename,
                current_app.config["DIRECTORY_IMPORT_DRAFT_HOURS"],
                form.base_url.data.strip() if form.base_url.data else None,
            )  # fmt: skip
            return redirect(
                url_for("directory.publications_preview", slug=person.slug, token=draft.token)
            )
    status = 400 if form.is_submitted() else 200
    return render_template(
        "directory/publications/import.html",
        person=person,
        form=form,
        orcid_fetch=current_app.config["DIRECTORY_ORCID_FETCH"],
        max_bytes=current_app.config["DIRECTORY_IMPORT_MAX_BYTES"],
    ), status


def _draft_or_404(person: m.Person, token: str) -> ImportDraft:
    draft = publication_reads.import_draft(get_session(), person, token)
    hours = current_app.config["DIRECTORY_IMPORT_DRAFT_HOURS"]
    if draft is None or draft.created_by != current_viewer().key or draft_expired(draft, hours):
        abort(404)
    return draft


@blueprint.route("/people/<slug>/publications/import/<token>", methods=["GET", "POST"])
def publications_preview(slug: str, token: str) -> Any:
    person = _person_for_import(slug)
    draft = _draft_or_404(person, token)
    plan = build_plan(draft, person)
    form = confirm_form_class(plan)()
    messages: list[str] = []
    status = 200
    if form.validate_on_submit():
        if form.fingerprint.data != plan.fingerprint:
            messages.append(
                "The department's papers changed since this preview was shown; check the "
                "entries below again and confirm."
            )
            status = 409
        else:
            try:
                outcome, summary = paper_operations.import_draft(
                    current_unit_of_work(), person, draft, plan, decisions=form.decisions(),
                    skip_invalid=bool(form.skip_invalid.data), replace=form.replace(),
                )  # fmt: skip
            except PlanRefused as refused:
                current_unit_of_work().rollback()
                messages.extend(refused.messages)
                status = 400
            else:
                if outcome == PENDING:
                    flash(_("Saved for approval: your advisor or an admin will review this "
                          "import before the papers are public."), "info")  # fmt: skip
                else:
                    flash(_("Imported: %(summary)s.", summary=summary), "success")
                return redirect(url_for("directory.publications_manage", slug=person.slug))
    elif form.is_submitted():
        status = 400
        messages.append(
            "Nothing was imported: this page had expired or did not come from this site; "
            "confirm again." if csrf_failed(form) else
            "Nothing was imported: see the questions marked below."
        )  # fmt: skip
    form.fingerprint.data = plan.fingerprint
    # One page of entries, in the order the groups are shown; a file of thousands of entries
    # would otherwise be a page of many megabytes.
    ordered = [e for wanted in PREVIEW_ORDER for e in plan.entries if e.status == wanted]
    size = PREVIEW_PAGE_SIZE
    pages = max(1, -(-len(ordered) // size))
    number = min(max(request.args.get("page", 1, type=int) or 1, 1), pages)
    page = Page(ordered[(number - 1) * size : number * size], number, size,
                           len(ordered))  # fmt: skip
    shown = {e.index for e in page.items}
    elsewhere = [
        e for e in ordered if e.needs_decision and e.index not in shown and form[
            f"decision-{e.index}"].errors
    ]  # fmt: skip
    if elsewhere:
        lines = ", ".join(str(e.line) for e in elsewhere[:10] if e.line)
        messages.append(
            f"{len(elsewhere)} possible duplicate(s) on other pages of this preview need a "
            f"decision (line {lines}{', ...' if len(elsewhere) > 10 else ''}): decide each "
            "there, or choose one answer for all of them."
        )
    groups = [
        (status_value, label, [e for e in page.items if e.status == status_value])
        for status_value, label in STATUSES
    ]
    return render_template(
        "directory/publications/preview.html",
        person=person,
        draft=draft,
        plan=plan,
        groups=[g for g in groups if g[2]],
        page=page,
        page_args=lambda n: {"slug": person.slug, "token": draft.token, "page": n},
        form=form,
        discard_form=DiscardImportForm(),
        messages=messages,
    ), status


@blueprint.route("/people/<slug>/publications/import/<token>/discard", methods=["POST"])
def publications_discard(slug: str, token: str) -> Any:
    person = _person_for_import(slug)
    draft = _draft_or_404(person, token)
    if DiscardImportForm().validate_on_submit():
        paper_operations.discard_draft(current_unit_of_work(), draft)
        flash(_("The import was discarded; nothing was written."), "info")
    else:
        abort(400)
    return redirect(url_for("directory.publications_import", slug=person.slug))


# --------------------------------------------------------------------------------------------
# A person's papers: selected / hidden
# --------------------------------------------------------------------------------------------


@blueprint.route("/people/<slug>/publications/manage", methods=["GET", "POST"])
def publications_manage(slug: str) -> Any:
    """A page (``?page=N``) of the person's papers, each with its selected and hidden flags,
    saved together by one form."""
    person = _person_for_import(slug)
    session = get_session()
    filters = PageFilters.from_args(request.args)
    size = current_app.config["DIRECTORY_PAGE_SIZE"]
    total = publication_reads.profile_paper_count(session, person)
    pages = max(1, -(-total // size))
    number = min(filters.page, pages)
    rows = publication_reads.profile_paper_page(session, person, number, size)
    form = PublicationListForm()
    form.set_papers(
        publication_reads.profile_paper_uids(session, person)
        if request.method == "POST"
        else [row.publication.uid for row in rows]
    )
    if form.validate_on_submit():
        flash_outcome(
            paper_operations.set_selected_and_hidden(
                current_unit_of_work(), person, set(form.shown.data), set(form.selected.data),
                set(form.hidden.data),
            )
        )  # fmt: skip
        return redirect(url_for("directory.publications_manage", slug=person.slug,
                                **filters.with_page(number)))  # fmt: skip
    if request.method == "GET":
        form.selected.data = [row.publication.uid for row in rows if row.selected]
        form.hidden.data = [row.publication.uid for row in rows if row.hidden]
    page = Page(rows, number, size, total)
    return render_template(
        "directory/publications/manage.html",
        person=person,
        rows=rows,
        form=form,
        page=page,
        requested=filters.page if filters.page > pages else None,
        page_args=lambda n: {"slug": person.slug, **filters.with_page(n)},
        can_manage_records=can_manage_publication_records(current_viewer()),
    ), 200 if request.method == "GET" else 400  # fmt: skip


# --------------------------------------------------------------------------------------------
# Exports
# --------------------------------------------------------------------------------------------


def _keyed(datas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give every paper a citation key unique in the list (as the BibTeX writer would)."""
    used: set[str] = set()
    for data in datas:
        base = data.get("key") or make_citation_key(data)
        key, n = base, 1
        while key.lower() in used:
            n += 1
            key = f"{base}-{n}"
        used.add(key.lower())
        data["key"] = key
    return datas


def _bibtex_response(datas: list[dict[str, Any]], filename: str) -> Response:
    response = Response(publications_to_bibtex(_keyed(datas)), mimetype="application/x-bibtex")
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


def _csl_response(datas: list[dict[str, Any]], filename: str) -> Response:
    items = [publication_to_csl(data, id=data["key"]) for data in _keyed(datas)]
    response = Response(
        json.dumps(items, ensure_ascii=False, indent=2),
        mimetype="application/vnd.citationstyles.csl+json",
    )
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


def _person_datas(slug: str) -> tuple[m.Person, list[dict[str, Any]]]:
    person = get_person_or_404(slug)
    rows = profile_publications(get_session(), person, current_viewer())
    return person, [publication_data(row.publication, row) for row in rows]


@blueprint.route("/people/<slug>/publications.bib")
def person_publications_bibtex(slug: str) -> Response:
    person, datas = _person_datas(slug)
    return _bibtex_response(datas, f"{person.slug}.bib")


@blueprint.route("/people/<slug>/publications.csl.json")
def person_publications_csl(slug: str) -> Response:
    person, datas = _person_datas(slug)
    return _csl_response(datas, f"{person.slug}.csl.json")


@blueprint.route("/publications")
@cached_page
def publications() -> str:
    """Every department paper once, filtered by the query string, a page at a time."""
    filters = PublicationFilters.from_args(request.args)
    page, choices = publications_page(
        get_session(), current_viewer(), filters, current_app.config["DIRECTORY_PAGE_SIZE"]
    )
    return render_template(
        "directory/publications.html",
        page=page,
        choices=choices,
        filters=filters,
        chart=bar_chart(choices.years, selected=filters.year),
    )


def _department_datas() -> list[dict[str, Any]]:
    """What the department list shows with the same filters, on every page at once."""
    filters = PublicationFilters.from_args(request.args)
    papers = publication_reads.department_list_papers(get_session(), current_viewer(), filters)
    return [publication_data(pub) for pub in papers]


@blueprint.route("/publications.bib")
def department_publications_bibtex() -> Response:
    return _bibtex_response(_department_datas(), "publications.bib")


@blueprint.route("/publications.csl.json")
def department_publications_csl() -> Response:
    return _csl_response(_department_datas(), "publications.csl.json")


# --------------------------------------------------------------------------------------------
# Shared records (admins): merge, split, versions
# --------------------------------------------------------------------------------------------


def _record_or_404(uid: str) -> m.Publication:
    if not can_manage_publication_records(current_viewer()):
        abort(403)
    pub = publication_reads.paper_by_uid(get_session(), uid, publication_options())
    if pub is None:
        abort(404)
    return pub


def _holders(pub: m.Publication) -> list[tuple[m.Person, m.ProfilePublication]]:
    return publication_reads.holders(get_session(), pub)


def _render_record(pub: m.Publication, status: int = 200, **forms: Any) -> Any:
    session = get_session()
    data = publication_data(pub)
    candidates = PublicationIndex(session, [data]).candidates(data, {pub.id})
    others = publication_reads.papers_by_id(session, [c.publication_id for c in candidates])
    return render_template(
        "directory/publications/record.html",
        pub=pub,
        holders=_holders(pub),
        candidates=[(c, others[c.publication_id]) for c in candidates],
        merge_form=forms.get("merge_form") or PublicationMergeForm(formdata=None),
        versions_form=forms.get("versions_form") or PublicationVersionsForm(formdata=None),
        split_form=forms.get("split_form") or PublicationSplitForm(formdata=None),
        split_error=forms.get("split_error"),
    ), status


@blueprint.route("/publications/<uid>/record")
def publication_record(uid: str) -> Any:
    return _render_record(_record_or_404(uid))


def _other_record(form: Any, pub: m.Publication) -> m.Publication | None:
    uid = (form.other.data or "").strip()
    other = publication_reads.paper_by_uid(get_session(), uid)
    if other is None:
        form.other.errors.append(_("No paper has this record id."))
    elif other.id == pub.id:
        form.other.errors.append(_("This is the same paper."))
        other = None
    return other


def _may_manage_records() -> bool:
    return can_manage_publication_records(current_viewer())


@blueprint.route("/publications/<uid>/merge", methods=["POST"])
def publication_merge(uid: str) -> Any:
    pub = _record_or_404(uid)
    form = PublicationMergeForm()
    if form.validate_on_submit():
        other = _other_record(form, pub)
        if other is not None:
            title = other.title
            paper_operations.merge_records(
                current_unit_of_work(), pub, other, allowed=_may_manage_records()
            )
            flash(
                _("“%(title)s” was merged into this paper; every author kept.", title=title),
                "success",
            )
            return redirect(url_for("directory.publication_record", uid=pub.uid))
    return _render_record(pub, 400, merge_form=form)


@blueprint.route("/publications/<uid>/versions", methods=["POST"])
def publication_versions(uid: str) -> Any:
    pub = _record_or_404(uid)
    form = PublicationVersionsForm()
    if form.validate_on_submit():
        other = _other_record(form, pub)
        if other is not None:
            preprint, published = (pub, other) if form.direction.data == "this" else (other, pub)
            paper_operations.link_as_versions(
                current_unit_of_work(), preprint, published, allowed=_may_manage_records()
            )
            flash(_("The two papers are now linked as versions."), "success")
            return redirect(url_for("directory.publication_record", uid=pub.uid))
    return _render_record(pub, 400, versions_form=form)


@blueprint.route("/publications/<uid>/split", methods=["POST"])
def publication_split(uid: str) -> Any:
    pub = _record_or_404(uid)
    form = PublicationSplitForm()
    if form.validate_on_submit():
        holders = {person.id for person, _ in _holders(pub)}
        chosen = {int(v) for v in request.form.getlist("person") if v.isdigit()} & holders
        if chosen and chosen != holders:
            copy = paper_operations.split_record(
                current_unit_of_work(), pub, chosen, allowed=_may_manage_records()
            )
            flash(_("The chosen people now have their own record of this paper."), "success")
            return redirect(url_for("directory.publication_record", uid=copy.uid))
        error = _("Choose some, but not all, of the people listing this paper.")
        return _render_record(pub, 400, split_form=form, split_error=error)
    return _render_record(pub, 400, split_form=form)
