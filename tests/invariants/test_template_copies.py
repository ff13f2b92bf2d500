"""No directory template makes Jinja copy its whole context for each translated text.

Once a ``{% for %}`` body or a ``{% block %}`` has set a variable (``{% set %}``,
``{% set x %}…{% endset %}``, or the hidden ``_trans`` of a ``{% trans x=some_call() %}`` whose
first variable is a call), Jinja gives each later call in that loop iteration or block of a
function that takes the context (``_()``, ``gettext``, the gettext of ``{% trans %}``) a new copy
of the whole context (``jinja2.runtime.Context.derived``). The directory names such values with
``{% with %}`` instead, or sets them inside a ``{% with %}`` of their own: its body is a scope of
its own, as a macro's, a ``{% call %}``'s, a ``{% filter %}``'s, an ``{% autoescape %}``'s or a
set block's body are (an ``{% if %}``'s is not). A ``{% set ns.x = … %}`` of a namespace sets no
variable and costs nothing; nor does a set at a template's top level, outside its blocks, or a
set after the loop's or block's last such call.

The static rule is checked against Jinja itself: small templates of each kind are rendered and
their copies counted, and so is every measured page of a small generated department.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from jinja2 import Environment, nodes
from jinja2.runtime import Context
from jinja2.utils import _PassArg

from tests.conftest import login
from tests.support.measured_pages import PAGES, VIEWER_KEYS
from tests.support.synthetic import Sizes, bind_viewers, department_facts, generate

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
DIRECTORY_TEMPLATES = sorted(
    path.relative_to(TEMPLATES).as_posix()
    for path in (TEMPLATES / "directory").rglob("*")
    if path.is_file()
)

#: Sets after which a call copies the context, kept for now: (template, line of the set). A
#: page's copies in these templates are not counted either.
ALLOWED: dict[tuple[str, int], str] = {
    # The editor's list of pending changes ({% set what %} per change, then {% trans %}): a few
    # copies per pending change; editor.html is left to its own branch.
    ("directory/edit/editor.html", 34): "editor: the pending changes' list",
}

#: Statements whose body Jinja compiles in a frame of its own, where a set is not a loop's or a
#: block's (an ``{% autoescape %}`` is a Scope; an ``{% if %}``'s body runs in the frame around).
OWN_FRAME = (
    nodes.With,
    nodes.Macro,
    nodes.CallBlock,
    nodes.FilterBlock,
    nodes.AssignBlock,
    nodes.Scope,
    nodes.OverlayScope,
)
BODIES = ("body", "else_", "elif_")


def context_takers(env: Environment) -> set[str]:
    """The names a template calls that Jinja hands the context: gettext's, and any global
    marked ``pass_context``."""
    names = {"_", "gettext", "ngettext", "pgettext", "npgettext"}
    for name, value in env.globals.items():
        try:
            if _PassArg.from_obj(value) is _PassArg.context:
                names.add(name)
        except RuntimeError:  # a proxy, outside a request
            continue
    return names


def _expressions(node: nodes.Node) -> Iterator[nodes.Node]:
    """The expressions a statement evaluates in the frame it is in (a with's values, a for's
    iterable, an if's test; not those of a body with a frame of its own)."""
    if isinstance(node, (nodes.Macro, nodes.FilterBlock, nodes.AssignBlock)):
        return  # defaults and filters are evaluated in the statement's own frame
    for field, value in node.iter_fields():
        if field in BODIES or (isinstance(node, nodes.For) and field == "test"):
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, nodes.Expr):
                yield child


def _calls(expression: nodes.Node) -> list[tuple[str, nodes.Call]]:
    calls = list(expression.find_all(nodes.Call))
    if isinstance(expression, nodes.Call):
        calls.insert(0, expression)
    return [("call", call) for call in calls]


def _events(body: list[nodes.Node], frame: list, frames: list) -> None:
    """Append to ``frame`` its sets and calls in order; each nested frame of a loop or block
    to ``frames`` (other nested frames are scanned for their own loops and blocks)."""
    for node in body:
        if isinstance(node, nodes.If):
            for branch in [node, *node.elif_]:
                frame.extend(_calls(branch.test))
                _events(branch.body, frame, frames)
            _events(node.else_, frame, frames)
            continue
        for expression in _expressions(node):
            frame.extend(_calls(expression))
        if isinstance(node, nodes.For):
            loop: list = []
            frames.append((node, loop))
            _events(node.body, loop, frames)
            _events(node.else_, [], frames)
        elif isinstance(node, nodes.Block):
            block: list = []
            frames.append((node, block))
            _events(node.body, block, frames)
        elif isinstance(node, nodes.ScopedEvalContextModifier):  # inside the Scope
            _events(node.body, frame, frames)
        elif isinstance(node, OWN_FRAME):
            _events(node.body, [], frames)
        if isinstance(node, (nodes.Assign, nodes.AssignBlock)) and not isinstance(
            node.target, nodes.NSRef
        ):
            frame.append(("set", node))


def copying_frames(env: Environment, template: nodes.Template) -> list:
    """(loop or block, line, variables) of each set in a loop or a block that a later call of
    that loop's body or block to a function taking the context follows: each such call copies
    the context."""
    takers = context_takers(env)
    frames: list = []
    _events(template.body, [], frames)
    found = []
    for owner, frame in frames:
        pending = []
        for kind, node in frame:
            if kind == "set":
                pending.append(node)
            elif pending and isinstance(node.node, nodes.Name) and node.node.name in takers:
                for setter in pending:
                    line = setter.lineno or setter.node.lineno  # Jinja's _trans has no line
                    target = setter.target
                    names = [target] if isinstance(target, nodes.Name) else target.items
                    found.append((owner, line, ", ".join(n.name for n in names)))
                pending = []
    return found


def copying_sets(env: Environment, source: str, name: str | None = None) -> list[tuple[int, str]]:
    """(line, variables) of each set that copies the context (see copying_frames)."""
    return sorted(
        {(line, names) for _owner, line, names in copying_frames(env, env.parse(source, name))}
    )


def _copies(env: Environment, made: list) -> object:
    """A stand-in for ``Context.derived`` that notes (template, line) of each copy."""
    derived = Context.derived

    def counting(self, locals=None):  # noqa: A002 - Jinja's own name
        frame = sys._getframe(1)
        while frame is not None and "__jinja_template__" not in frame.f_globals:
            frame = frame.f_back
        if frame is None:
            made.append((None, 0))
        else:
            name = frame.f_globals.get("name")
            template = env.get_template(name) if name else None
            line = template.get_corresponding_lineno(frame.f_lineno) if template else 0
            made.append((name, line))
        return derived(self, locals)

    return counting


@pytest.mark.parametrize("name", DIRECTORY_TEMPLATES)
def test_no_template_copies_its_context_per_call(app, name: str) -> None:
    source = (TEMPLATES / name).read_text(encoding="utf-8")
    found = [
        f"line {line}: {{% set {names} %}}"
        for line, names in copying_sets(app.jinja_env, source, name)
        if (name, line) not in ALLOWED
    ]
    assert not found, (
        f"{name}: a set in a loop or block makes each later _() or {{% trans %}} in it copy the "
        "whole context; name the value with {% with %} (or, for a {% trans x=call() %}, "
        f"before the trans): {found}"
    )


def test_the_allowed_sets_are_still_there(app) -> None:
    for name, line in ALLOWED:
        source = (TEMPLATES / name).read_text(encoding="utf-8")
        assert line in {line for line, _names in copying_sets(app.jinja_env, source, name)}, (
            name,
            line,
        )


#: Small templates and whether Jinja copies the context in rendering them.
CASES = {
    "{% for i in xs %}{% set v = i %}{{ _('a') }}{% endfor %}": True,
    "{% for i in xs %}{% if i %}{% set v = i %}{% endif %}{{ _('a') }}{% endfor %}": True,
    "{% for i in xs %}{% set v %}{{ i }}{% endset %}{% trans %}a{% endtrans %}{% endfor %}": True,
    "{% for i in xs %}{% set v = i %}{% with w = _('a') %}{{ w }}{% endwith %}{% endfor %}": True,
    "{% for i in xs %}{% set v, w = i, i %}{{ v }}{{ _('a') }}{% endfor %}": True,
    "{% for i in xs %}{% trans n=xs.count(i) %}a {{ n }}{% endtrans %}{% endfor %}": True,
    "{% block b %}{% set v = 1 %}{{ _('a') }}{% endblock %}": True,
    "{% block b %}{% trans n=xs.count(1) %}a {{ n }}{% endtrans %}{% endblock %}": True,
    "{% block b %}{% if xs %}{% set v = 1 %}{% endif %}{{ gettext('a') }}{% endblock %}": True,
    "{% block b %}{% set v = 1 %}{% if _('a') %}b{% endif %}{% endblock %}": True,
    # a set after the calls, or in a scope of its own, or of a namespace; calls taking no context
    "{% for i in xs %}{{ _('a') }}{% set v = i %}{{ v }}{% endfor %}": False,
    "{% for i in xs %}{% with v = i %}{{ _('a') }}{% endwith %}{% endfor %}": False,
    "{% for i in xs %}{% with %}{% set v = i %}{{ _('a') }}{% endwith %}{% endfor %}": False,
    "{% for i in xs %}{% set v = i %}{{ v | upper }}{{ xs.count(v) }}{% endfor %}": False,
    "{% set ns = namespace(n=0) %}{% for i in xs %}{% set ns.n = i %}{{ _('a') }}"
    "{% endfor %}": False,
    "{% macro m() %}{% set v = 1 %}{{ _('a') }}{% endmacro %}"
    "{% block b %}{{ m() }}{% endblock %}": False,
    "{% macro m() %}{{ caller() }}{% endmacro %}{% for i in xs %}{% call m() %}{% set v = i %}"
    "{{ _('a') }}{% endcall %}{% endfor %}": False,
    "{% for i in xs %}{% filter upper %}{% set v = i %}{{ _('a') }}{% endfilter %}"
    "{% endfor %}": False,
    # {% autoescape %} is a scope of its own too
    "{% for i in xs %}{% autoescape false %}{% set v = i %}{{ _('a') }}{% endautoescape %}"
    "{% endfor %}": False,
    "{% for i in xs %}{% set v %}{% set w = i %}{{ _('a') }}{% endset %}{% endfor %}": False,
    "{% for i in xs %}{% trans n=i|string %}a {{ n }}{% endtrans %}{% endfor %}": False,
    "{% for i in xs %}{% trans n=i, m=xs.count(i) %}{{ n }} {{ m }}{% endtrans %}"
    "{% endfor %}": False,
    "{% for i in xs %}{% with n = xs.count(i) %}{% trans %}a {{ n }}{% endtrans %}{% endwith %}"
    "{% endfor %}": False,
    "{% set v = 1 %}{% for i in xs %}{{ _('a') }}{% endfor %}{{ _('b') }}": False,
    "{% for i in xs %}{% set v = i %}{% endfor %}{{ _('a') }}": False,
    "{% block b %}{% for i in xs %}{{ _('a') }}{% endfor %}{% endblock %}": False,
}


@pytest.mark.parametrize(("source", "copies"), CASES.items())
def test_the_rule_says_what_jinja_does(monkeypatch, source: str, copies: bool) -> None:
    env = Environment(extensions=["jinja2.ext.i18n"], autoescape=True)
    env.install_null_translations(newstyle=True)
    made: list = []
    monkeypatch.setattr(Context, "derived", _copies(env, made))
    env.from_string(source).render(xs=[1, 2])
    assert bool(made) is copies, made
    assert bool(copying_sets(env, source)) is copies


def test_no_measured_page_copies_its_context(app, client, db, monkeypatch) -> None:
    """Every page of the benchmark, rendered from a small generated department."""
    prefix = app.config["DIRECTORY_URL_PREFIX"].rstrip("/")
    generate(db, Sizes(faculty=3, members=10, alumni=4, publications=30, notices=3), prefix="c")
    facts = department_facts(db)
    bind_viewers(db, facts, VIEWER_KEYS)
    db.commit()
    excused = {name for name, _line in ALLOWED}
    made: list = []
    for page in PAGES:
        login(client, VIEWER_KEYS[page.viewer] if page.viewer else None)
        client.get(prefix + page.path(facts))  # compiled, and any kept value made
        monkeypatch.setattr(Context, "derived", _copies(app.jinja_env, made))
        response = client.get(prefix + page.path(facts))
        monkeypatch.undo()
        assert response.status_code in (200, 404), (page.name, response.status_code)
    copies = Counter((name, line) for name, line in made if name not in excused)
    assert not copies, copies
