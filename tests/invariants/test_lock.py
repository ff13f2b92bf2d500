"""requirements.lock: every dependency of pyproject.toml is pinned in it (within its range),
and the environment running the tests holds exactly the locked versions (``make install``
installs with the lock as constraints; CI runs this in the environment it built)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
#: The extras `make install` installs (and `make lock` resolves).
EXTRAS = ("test", "serve")


def locked() -> dict[str, Requirement]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line and not line.startswith((" ", "#")):
            requirement = Requirement(line)
            pins[canonicalize_name(requirement.name)] = requirement
    return pins


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = list(project["dependencies"])
    for extra in EXTRAS:
        names += project["optional-dependencies"][extra]
    return [Requirement(name) for name in names]


def test_every_dependency_is_pinned_within_its_range() -> None:
    pins = locked()
    assert len(pins) > 30
    unpinned, outside = [], []
    for requirement in declared():
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            unpinned.append(requirement.name)
            continue
        (exact,) = pin.specifier
        assert exact.operator == "==", pin
        if not requirement.specifier.contains(exact.version, prereleases=True):
            outside.append(f"{pin} (pyproject.toml: {requirement})")
    assert unpinned == [], "not in requirements.lock: run `make lock`"
    assert outside == [], "requirements.lock is outside pyproject.toml's ranges: `make lock`"


def test_the_environment_holds_exactly_the_locked_versions() -> None:
    wrong = []
    for name, pin in locked().items():
        if pin.marker is not None and not pin.marker.evaluate():
            continue  # another platform's package (e.g. colorama on Windows)
        (exact,) = pin.specifier
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if installed != exact.version:
            wrong.append(f"{name}: locked {exact.version}, installed {installed}")
    assert wrong == [], "run `make install` (it installs requirements.lock)"
