# The two commands of the quick start: `make run` and `make test`.
# The interpreter: PYTHON if given, else the first Python 3.12+ that scripts/find-python finds
# (PATH, then pyenv's versions). Python 3.11 crashes this project and is never used.
# The versions installed are exactly those of requirements.lock (`make lock` refreshes it).
VENV ?= .venv
LOCK := requirements.lock
PY := $(VENV)/bin/python
PORT ?= 5000
FLASK := $(VENV)/bin/flask --app wsgi

.PHONY: run test test-fast test-postgres install lock browser pdf-libs axe lint bench wrk clean messages catalogues new-language cjk-fonts

$(VENV)/.installed: pyproject.toml $(LOCK)
	@base=$$(scripts/find-python) || exit 1; \
	if [ -x $(PY) ] && ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then \
	  echo "Rebuilding $(VENV): it was made with Python older than 3.12"; rm -rf $(VENV); fi; \
	echo "Using $$base ($$($$base --version))"; $$base -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c $(LOCK) -e ".[test,serve,pdf,expertise]"
	@echo "Installed (pip freeze; the versions of $(LOCK)):"; $(PY) -m pip freeze --exclude-editable
	touch $@

install: $(VENV)/.installed

## Refresh requirements.lock from PyPI after changing a dependency in pyproject.toml, with uv
## (keeps the other pins; `make lock LOCK_ARGS=--upgrade` moves every package to its newest).
## One resolution for every platform and every Python from 3.12 on.
lock: install
	$(PY) -m pip install --quiet -e ".[lock]"
	$(VENV)/bin/uv pip compile pyproject.toml --extra test --extra serve --extra expertise --universal \
	  --python-version 3.12 --custom-compile-command "make lock" $(LOCK_ARGS) -o $(LOCK)

## Serve the standalone site with the demo department on http://127.0.0.1:$(PORT)
run: install pdf-libs
	$(FLASK) directory db upgrade
	$(FLASK) directory load-demo --if-empty
	$(FLASK) directory create-demo-accounts
	$(FLASK) run --host 127.0.0.1 --port $(PORT)

## Debian's Chromium for the browser tests (Playwright never downloads a browser here).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

## Pango and a font for WeasyPrint's PDFs (the CV), from Debian (installed as root if missing).
pdf-libs:
	@ldconfig -p | grep -q libpangoft2-1.0.so.0 && ldconfig -p | grep -q libharfbuzz-subset.so.0 \
	  && [ -d /usr/share/fonts/truetype/dejavu ] || { \
	  echo "Installing Pango and DejaVu fonts for PDF output"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core >/dev/null; }

## axe-core for the accessibility tests, from the npm registry into .cache/axe (git-ignored).
AXE := .cache/axe/node_modules/axe-core/axe.min.js
$(AXE):
	npm install --silent --no-audit --no-fund --prefix .cache/axe axe-core@4

axe: $(AXE)

## Run the whole suite (SQLite by default; set DIRECTORY_TEST_DATABASE_URL for PostgreSQL),
## a worker per core (pytest-xdist), each test file on one worker so that its shared fixtures
## (one demo load per module) are built once.
test: install browser pdf-libs axe
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -q -n auto --dist loadfile

## The inner loop: the suite without the slow tests (over 30 s, wheels, subprocesses) and
## without the browser; CI runs everything through `make test`.
test-fast: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -q -n auto --dist loadfile -m "not slow and not browser"

test-postgres:
	DIRECTORY_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test $(MAKE) test

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## Translations (docs/translating.md): the directory's messages live in the gettext domain
## "directory", one catalogue per language in directory/translations/<locale>/LC_MESSAGES/.
TRANSLATIONS := directory/translations
PYBABEL := $(VENV)/bin/pybabel
## Extract every marked message into the template and merge it into each catalogue.
messages: install
	$(PYBABEL) extract -F babel.cfg -k _l -k N_ -k lazy_gettext --sort-output \
	  --project faculty-directory --copyright-holder "The faculty-directory contributors" \
	  -o $(TRANSLATIONS)/directory.pot .
	$(PYBABEL) update -D directory -i $(TRANSLATIONS)/directory.pot -d $(TRANSLATIONS) \
	  --no-fuzzy-matching --ignore-obsolete

## Compile every catalogue (.po) to the .mo the wheel ships; commit both.
catalogues: install
	$(PYBABEL) compile -D directory -d $(TRANSLATIONS) --statistics

## Start a catalogue for another language: `make new-language LOCALE=de`.
new-language: messages
	$(PYBABEL) init -D directory -i $(TRANSLATIONS)/directory.pot -d $(TRANSLATIONS) -l $(LOCALE)

## A CJK font (Noto) for looking at Chinese pages in the headless browser; the suite needs none.
cjk-fonts:
	@fc-list :lang=zh | grep -q . || { \
	  echo "Installing Noto CJK fonts"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null; }

## wrk drives the throughput part of `make bench` (Debian package; installed as root if missing).
wrk:
	@command -v wrk >/dev/null 2>&1 || { \
	  echo "Installing wrk for the benchmark"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

## Benchmark a synthetic department (BENCH_ARGS=--small for a quick run, --db URL for PostgreSQL).
bench: install wrk
	$(PY) benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) dist build instance .pytest_cache .cache
