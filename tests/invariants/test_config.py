"""Settings: one module owns every default, and the README documents every one of them."""

from __future__ import annotations

import re
from pathlib import Path

from directory import config
from tests.conftest import make_app

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_lists_exactly_the_settings_of_the_config_module() -> None:
    documented = set(re.findall(r"^\| `(DIRECTORY_[A-Z_]+)` \|", README.read_text(), re.MULTILINE))
    assert documented == set(config.defaults())


def test_host_values_win_and_defaults_fill_the_rest() -> None:
    app = make_app(DIRECTORY_DEPARTMENT_NAME="Physics", DIRECTORY_URL_PREFIX="/people")
    assert app.config["DIRECTORY_DEPARTMENT_NAME"] == "Physics"
    assert app.config["DIRECTORY_PAGE_SIZE"] == config.DIRECTORY_PAGE_SIZE
    assert app.extensions["directory"] is not None


def test_mutable_defaults_are_not_shared_between_apps() -> None:
    first, second = make_app(), make_app()
    first.config["DIRECTORY_APPROVAL_ROLES"].append("phd_student")
    assert second.config["DIRECTORY_APPROVAL_ROLES"] == []
