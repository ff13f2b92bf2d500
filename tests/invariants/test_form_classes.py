"""Every form class of the package is a DirectoryForm, so that it checks its CSRF token even in a
host that sets ``WTF_CSRF_ENABLED = False``. Found by introspection (every WTForms form class
the imported package defines, the import confirm form built from a plan included) and by
reading the source (a form in a module nobody imports is caught too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from wtforms import Form

import directory
from directory.services.pubimport.plan import ImportPlan, PlannedEntry
from directory.web.csrf import DirectoryForm
from tests.conftest import make_app

PACKAGE = Path(directory.__file__).parent
#: The only module that may build on Flask-WTF's or WTForms' own form classes.
CSRF_MODULE = PACKAGE / "web" / "csrf.py"
BARE_FORMS = {"flask_wtf": {"FlaskForm"}, "flask_wtf.form": {"FlaskForm"},
              "wtforms": {"Form", "BaseForm"}, "wtforms.form": {"Form", "BaseForm"}}  # fmt: skip


def _name(form_class: type) -> str:
    return f"{form_class.__module__}.{form_class.__qualname__}"


def confirm_form() -> type:
    """The import confirm form of the smallest plan that asks for a decision: one possible
    duplicate (the form then has a required choice for it)."""
    from directory.web.views.publications import confirm_form_class

    duplicate = PlannedEntry(index=0, line=1, key="wei2024", status="duplicate",
                             reason="Same title as a department paper.",
                             data={"title": "A Paper"})  # fmt: skip
    form_class = confirm_form_class(ImportPlan(person_id=1, source="bibtex", entries=[duplicate]))
    assert "decision-0" in vars(form_class), "the plan's decision is not on the form"
    return form_class


def package_form_classes() -> list[type]:
    """Every WTForms form class defined in the ``directory`` package once its views are
    imported (Flask-WTF's FlaskForm is one of them), plus a confirm form built from a plan."""
    import directory.web.views  # noqa: F401 - defines the forms of every view

    built = confirm_form()
    found: set[type] = set()
    todo = [Form]
    while todo:
        for subclass in todo.pop().__subclasses__():
            todo.append(subclass)
            if subclass.__module__.split(".")[0] == "directory":
                found.add(subclass)
    assert built in found
    return sorted(found, key=_name)


FORM_CLASSES = package_form_classes()


def test_the_walk_finds_the_forms_of_every_part() -> None:
    modules = {form_class.__module__ for form_class in FORM_CLASSES}
    assert {"directory.web.forms", "directory.web.publication_form",
            "directory.web.views.auth", "directory.web.views.publications"} <= modules  # fmt: skip


@pytest.mark.parametrize("form_class", FORM_CLASSES, ids=_name)
def test_every_form_class_is_a_directory_form(form_class: type) -> None:
    assert issubclass(form_class, DirectoryForm), (
        f"{_name(form_class)} must subclass directory.web.csrf.DirectoryForm"
    )


def test_every_form_checks_its_token_where_the_host_turned_wtf_csrf_off() -> None:
    """Being a subclass is not enough if a class switches CSRF off in its own Meta."""
    host = make_app(WTF_CSRF_ENABLED=False)
    with host.test_request_context():
        for form_class in FORM_CLASSES:
            form = form_class()
            assert form.meta.csrf, f"{_name(form_class)} does not check a CSRF token"
            assert "csrf_token" in form, _name(form_class)


# ----------------------------------------------------------------------------- the source


def bare_form_uses(source: str, filename: str) -> list[str]:
    """Where ``source`` imports Flask-WTF's FlaskForm or WTForms' Form, or subclasses one of
    them, however it was imported (``from flask_wtf import FlaskForm as F``, ``import
    wtforms``...): "file:line: what"."""
    tree = ast.parse(source, filename)
    names: set[str] = set()  # local names bound to a bare form class
    modules: dict[str, set[str]] = {}  # local names bound to a module that defines one
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in BARE_FORMS:
            for alias in node.names:
                if alias.name in BARE_FORMS[node.module]:
                    names.add(alias.asname or alias.name)
                    problems.append(f"{filename}:{node.lineno}: imports {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in BARE_FORMS:
                    modules[alias.asname or alias.name] = BARE_FORMS[alias.name]
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                bare = (isinstance(base, ast.Name) and base.id in names) or (
                    isinstance(base, ast.Attribute)
                    and isinstance(base.value, ast.Name)
                    and base.attr in modules.get(base.value.id, ())
                )
                if bare:
                    problems.append(
                        f"{filename}:{node.lineno}: class {node.name}({ast.unparse(base)})"
                    )
    return problems


def test_no_module_builds_a_form_on_flask_wtf_or_wtforms_directly() -> None:
    """Only directory/web/csrf.py (DirectoryForm itself) may; everything else subclasses
    DirectoryForm or one of its subclasses."""
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != CSRF_MODULE:
            problems += bare_form_uses(path.read_text("utf-8"), str(path.relative_to(PACKAGE)))
    assert not problems, "use directory.web.csrf.DirectoryForm instead:\n" + "\n".join(problems)


def test_the_source_check_sees_a_bare_form_however_it_is_imported() -> None:
    """The check above can fail: it reports each way of writing a form without the base."""
    source = (
        "import flask_wtf\n"
        "import wtforms as w\n"
        "from flask_wtf import FlaskForm as Base\n"
        "from directory.web.forms import ActionForm\n"
        "class Plain(flask_wtf.FlaskForm): pass\n"
        "class Bare(w.Form): pass\n"
        "class Aliased(Base): pass\n"
        "class Fine(ActionForm): pass\n"
    )
    assert bare_form_uses(source, "planted.py") == [
        "planted.py:3: imports FlaskForm",
        "planted.py:5: class Plain(flask_wtf.FlaskForm)",
        "planted.py:6: class Bare(w.Form)",
        "planted.py:7: class Aliased(Base)",
    ]
