# Roundhouse: `make run` serves the demo, `make test` runs every check, `make test-fast` the quick ones.
SHELL := /bin/bash
PORT ?= 8000
# Where `make run` listens: 127.0.0.1, this machine only; 0.0.0.0 for a tablet on the same Wi-Fi.
HOST ?= 127.0.0.1
# The interpreter of .venv (and of uv's bootstrap): any of 3.11 to 3.13, e.g. `make test
# PYTHON=python3.13` or a path; another version re-creates .venv with it. The default, python3,
# keeps whichever .venv is there: back to 3.11 with PYTHON=python3.11.
PYTHON ?= python3
UV := $(or $(shell command -v uv 2>/dev/null),$(CURDIR)/.tools/bin/uv)
VENV := $(CURDIR)/.venv
PY := $(VENV)/bin/python
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: run test lint format install worker beat migrate demo clean

# uv itself comes from PyPI into a private tool venv when the machine has none.
$(CURDIR)/.tools/bin/uv:
	$(PYTHON) -m venv $(CURDIR)/.tools
	$(CURDIR)/.tools/bin/pip install --quiet --disable-pip-version-check uv

# The stamp names the PYTHON it was synced with: another one syncs again. A full install has the
# runtime too: it stamps both, so `make run` after `make test` syncs nothing.
$(VENV)/.synced: pyproject.toml uv.lock $(if $(filter $(PYTHON),$(file <$(VENV)/.synced)),,FORCE) | $(UV)
	$(UV) sync --frozen --python $(PYTHON)
	echo '$(PYTHON)' >$@
	echo '$(PYTHON)' >$(VENV)/.synced-runtime

# `make run` needs the runtime dependencies only: no dev group (pytest, Playwright, schemathesis,
# ...) and no npm. A .venv with the dev group keeps it (synced again in full when the lock
# changed); otherwise the dev group goes, and `make test` brings it back with one quick uv sync
# from uv's cache.
$(VENV)/.synced-runtime: pyproject.toml uv.lock $(if $(filter $(PYTHON),$(file <$(VENV)/.synced-runtime)),,FORCE) | $(UV)
	@if [ -f $(VENV)/.synced ]; then \
	  $(UV) sync --frozen --quiet --python $(PYTHON) && echo '$(PYTHON)' >$(VENV)/.synced; \
	else \
	  echo "Installing the runtime dependencies into .venv (uv sync --no-dev)..."; \
	  $(UV) sync --frozen --no-dev --quiet --python $(PYTHON); \
	fi
	@echo '$(PYTHON)' >$@

.PHONY: FORCE
FORCE:

install: $(VENV)/.synced node_modules/.installed

# axe-core, for the accessibility checks of the browser tests (skipped, with the reason, without npm).
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund --silent && touch $@; \
	else echo "npm is missing: the accessibility checks will skip"; fi

# The demo: SQLite, tasks inline, quiet (warnings only; the server's request lines stay), the
# addresses and logins printed last. HOST=0.0.0.0 serves a tablet on the same Wi-Fi too.
run: export DJANGO_LOG_LEVEL := $(or $(DJANGO_LOG_LEVEL),WARNING)
run: export ROUNDHOUSE_RUN_HOST := $(HOST)
run: $(VENV)/.synced-runtime
	@echo "Preparing the database and the demo (about a minute the first time)..."
	@$(PY) manage.py migrate --noinput --verbosity 0
	@$(PY) manage.py load_demo --host $(HOST) --port $(PORT)
	@$(PY) manage.py runserver --skip-checks $(HOST):$(PORT)

# pytest-xdist's workers, each with a test database and cache keys of its own: `make test
# WORKERS=0` runs the tests in one process, WORKERS=auto one worker per core.
WORKERS ?= 2
# worksteal: a worker that runs out takes tests queued for the other, so the suite's slowest
# tests (a page sweep of 3 minutes, the demo club loaded ten times) do not end it on one worker
# while the other waits.
PYTEST_XDIST = -n $(WORKERS) --dist worksteal

# Compiled modules kept for the tests' processes and those they start (each stack's gunicorn,
# workers and manage.py, a live worker), and pytest's rewritten tests: a shell that says
# PYTHONDONTWRITEBYTECODE would have each of them compile the project again.
test test-fast: export PYTHONDONTWRITEBYTECODE :=

test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/pytest $(PYTEST_XDIST)

# The inner loop: everything but the browser tests (tests/browser/) and the tests that start
# processes of their own (tests/integration/: nginx, gunicorn, Celery workers, a Redis).
# `make test` runs them all, as CI does.
.PHONY: test-fast
test-fast: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest $(PYTEST_XDIST) -m "not browser and not stack"

# Every page at a phone, a tablet and a desktop (and at 200% text on the phone and tablet), in
# English and Spanish, as PNGs in docs/screenshots/all/ (the browser tests' demo event; needs
# PostgreSQL, Redis and Chromium as `make test` does). Not part of `make test`.
.PHONY: screenshots
screenshots: install
	rm -rf docs/screenshots/all && mkdir -p docs/screenshots/all
	ROUNDHOUSE_SCREENSHOTS=$(CURDIR)/docs/screenshots/all $(VENV)/bin/pytest -q -p no:cacheprovider \
	  tests/browser/test_every_page_fits.py; \
	  echo "$$(ls docs/screenshots/all | wc -l) screenshots in docs/screenshots/all/"

# The guides' pictures (docs/guide/img/), retaken against the demo that `make run PORT=...` serves.
.PHONY: guide-screenshots
guide-screenshots: install
	$(PY) docs/guide/screenshots.py --base http://127.0.0.1:$(PORT)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

worker: install
	$(VENV)/bin/celery -A config worker --loglevel=info

beat: install
	$(VENV)/bin/celery -A config beat --loglevel=info

clean:
	rm -rf $(VENV) .tools db.sqlite3

# The production topology on this machine (deploy/stack.sh): nginx, two gunicorn pools, two workers
# and beat. `make stack HOSTS=2`: two web hosts (each its nginx and both pools) behind a balancer,
# on http://127.0.0.1:8190/ (stack.sh's header names every port); stop and status find them.
.PHONY: stack stack-stop stack-status

stack: install
	$(if $(HOSTS),STACK_HOSTS=$(HOSTS) )bash deploy/stack.sh start

stack-stop: install
	bash deploy/stack.sh stop

stack-status: install
	bash deploy/stack.sh status
