"""The API does what /api/v1/openapi.json says. Schemathesis runs against the app itself on the
test database (SQLite or PostgreSQL), with the demo department loaded so that lists and
profiles have content, as `schemathesis run` would against a server: its coverage phase
(boundary and just-out-of-range values of every parameter, each parameter missing, given
twice, of the wrong type, and every method the document does not list) and its fuzzing phase
(a bounded number of generated requests per operation, valid and invalid ones). Every check
runs on every answer: no 5xx, documented status codes, content types and headers, bodies that
match their schemas, invalid requests refused (``negative_data_rejection``), undocumented
methods answered 405 with ``Allow`` (``unsupported_method``).

Schema-valid requests must be accepted, with two documented exceptions: a filter naming an
area, person or advisor that does not exist (or is hidden) is a 400 naming that parameter (a
string schema cannot say which slugs exist), and so is an alumni ``year_to`` before
``year_from`` (a schema cannot compare two parameters).

The second test checks the one source of truth from the outside: for every documented query
parameter of every list and any text, the API reads the value exactly when the published
schema allows it, and otherwise answers a 400 problem naming the parameter."""

from __future__ import annotations

import json
from collections import Counter

import jsonschema
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events, from_schema

API = "/directory/api/v1"
#: Generated requests per operation and generation mode in the fuzzing phase (the bound keeps
#: the suite fast; the coverage phase adds its own fixed set of a few hundred requests).
EXAMPLES = 25
#: The parameters whose valid-looking values may name nothing, or contradict another
#: (documented 400).
REFERENCES = ("area", "person", "advisor", "year_to")

CONFIG = f"""
seed = 20260601
[generation]
mode = "all"
max-examples = {EXAMPLES}
database = "none"
[phases.coverage]
generate-duplicate-query-parameters = true
[phases.stateful]
enabled = false
[checks.positive_data_acceptance]
enabled = false
"""


@schemathesis.check
def refused_only_for_unknown_references(ctx, response, case) -> None:
    """A schema-valid request is answered, unless it names an unknown area, person or advisor,
    or ends a year range before it starts."""
    if case.meta is None or case.meta.generation.mode.is_negative:
        return
    if response.status_code == 400:
        problem = json.loads(response.content)
        assert problem.get("parameter") in REFERENCES, f"valid request refused: {problem}"


@pytest.mark.slow
def test_schemathesis_finds_no_mismatch(app, demo) -> None:
    config = SchemathesisConfig.from_str(CONFIG)
    schema = schemathesis.openapi.from_wsgi(f"{API}/openapi.json", app, config=config)
    failures: set[str] = set()
    ran: Counter = Counter()
    for event in from_schema(schema).execute():
        if isinstance(event, events.NonFatalError | events.FatalError):
            failures.add(f"error: {event.info.format()}"[:1500])
        if not isinstance(event, events.ScenarioFinished):
            continue
        if event.status == Status.ERROR:
            failures.add(f"{event.recorder.label}: errored")
        recorder = event.recorder
        for case_id, checks in recorder.checks.items():
            case = recorder.cases[case_id].value
            mode = case.meta.generation.mode if case.meta else None
            for check in checks:
                ran[(str(event.phase), str(mode), check.name)] += 1
                if check.status == Status.FAILURE:
                    failure = check.failure_info.failure
                    failures.add(
                        f"{recorder.label} {check.name}: {failure.title}\n"
                        f"  {case.method} {case.path} query={case.query!r}\n  {failure.message}"[
                            :1500
                        ]
                    )
    assert failures == set(), "\n\n".join(sorted(failures))
    # The run did what it says: both phases, both modes, the named checks.
    checks = ("negative_data_rejection", "status_code_conformance", "not_a_server_error",
              "response_schema_conformance", "refused_only_for_unknown_references")  # fmt: skip
    for phase, mode in [("coverage", "negative"), ("fuzzing", "negative"), ("fuzzing", "positive")]:
        for name in checks:
            assert ran[(phase, mode, name)] > 0, (phase, mode, name)
    assert ran[("coverage", "positive", "unsupported_method")] > 0


# ----------------------------------------------------------------------------- one source


@pytest.fixture(scope="module")
def document(app) -> dict:
    with app.test_client() as client:
        return client.get(f"{API}/openapi.json").get_json()


def _query_parameters(document: dict) -> list[tuple[str, dict]]:
    """(list path, parameter) for each documented query parameter of each list."""
    found = []
    for path, item in document["paths"].items():
        for parameter in item["get"]["parameters"]:
            if "$ref" in parameter:
                parameter = document["components"]["parameters"][parameter["$ref"].split("/")[-1]]
            if parameter["in"] == "query":
                found.append((path, parameter))
    return found


def _candidates(schema: dict) -> st.SearchStrategy[str]:
    """Text near the edge of ``schema``: its own values, changed a little (case, spaces,
    signs, one past a bound), and any text."""
    near: list[str] = ["", " ", "0", "-1", "1.0", "+1", "01", "true", "null", "\x00"]
    for choice in schema.get("anyOf", [schema]):
        near += [str(value) for value in choice.get("enum", [])]
        for bound in ("minimum", "maximum"):
            if bound in choice:
                near += [str(choice[bound] + step) for step in (-1, 0, 1)]
        if "maxLength" in choice:
            near += ["x" * choice["maxLength"], "x" * (choice["maxLength"] + 1)]
    changed = st.sampled_from(near).flatmap(
        lambda text: st.sampled_from(
            [text, text.upper(), text.lower(), f" {text}", f"{text} ", text.title()]
        )
    )
    return st.one_of(changed, st.text(max_size=8))


def _published_schema_allows(schema: dict, text: str) -> bool:
    """Whether the value ``text`` of a query parameter is valid against ``schema``, reading
    text that spells a whole number as that number (how OpenAPI serialises an integer), with
    or without a zero fraction: JSON Schema counts 18.0 as an integer, and Schemathesis
    writes it "18.0"."""
    values: list = [text]
    whole, _, fraction = text.partition(".")
    digits = whole.lstrip("-")
    if (digits.isascii() and digits.isdigit() and str(int(whole)) == whole
            and (not _ or (fraction and set(fraction) == {"0"}))):  # fmt: skip
        values.append(int(whole))
    return any(jsonschema.Draft202012Validator(schema).is_valid(value) for value in values)


def _mismatch(client, path: str, name: str, schema: dict, text: str) -> str | None:
    """How the API's answer to ``?name=text`` differs from what the document says, if it does."""
    response = client.get(f"{API}{path}", query_string={name: text})
    allowed = _published_schema_allows(schema, text)
    problem = response.get_json() if response.status_code == 400 else None
    if allowed and name in REFERENCES and problem and problem["parameter"] == name:
        return None  # a well-formed slug of nothing: the documented 400
    if response.status_code == (200 if allowed else 400) and (
        allowed or problem["parameter"] == name
    ):
        return None
    return f"{path}?{name}={text!r}: {response.status_code} {problem}"


def _check_parameter(client, path: str, name: str, schema: dict) -> str | None:
    @given(text=_candidates(schema))
    @settings(max_examples=20, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def check(text: str) -> None:
        mismatch = _mismatch(client, path, name, schema, text)
        assert mismatch is None, mismatch

    try:
        check()
    except AssertionError as mismatch:
        return str(mismatch)
    return None


@pytest.mark.slow
def test_the_api_reads_a_parameter_exactly_as_its_schema_says(app, client, document) -> None:
    parameters = _query_parameters(document)
    assert {p["name"] for _, p in parameters} >= {
        "page", "per_page", "role", "letter", "recruiting", "funded", "year", "q"
    }  # fmt: skip
    mismatches = [
        mismatch
        for path, parameter in parameters
        if (mismatch := _check_parameter(client, path, parameter["name"], parameter["schema"]))
    ]
    assert mismatches == [], "\n".join(mismatches)


def test_a_parameter_given_twice_is_refused(client) -> None:
    response = client.get(f"{API}/people?page=1&page=2")
    assert response.status_code == 400
    assert response.get_json()["parameter"] == "page"
    assert response.get_json()["detail"] == "page must be given once"
