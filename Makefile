# Two commands for a newcomer: `make run` and `make test`. Everything installs into .venv from requirements.lock.
# The interpreter that builds .venv: Python 3.11 (what CI runs and requirements.lock is compiled for), else 3.12 (every
# pinned package installs from a 3.12 wheel), whichever is installed first; PYTHON=... picks one, checked the same way.
# Each candidate is run, not only looked up: a pyenv shim exists for versions that are not selected and fails when run.
# 3.13 is refused: libcst, a pinned dev tool, needs pyyaml-ft there, which the lock does not hold.
SUPPORTED_PYTHON := 3.11 3.12
PYTHON_VERSION_OF = $(shell $(1) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifndef PYTHON
PYTHON := $(firstword $(foreach p,python3.11 python3.12 python3,\
	$(if $(filter $(SUPPORTED_PYTHON),$(call PYTHON_VERSION_OF,$(p))),$(p))))
endif
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run serve worker prune setup test test-fast lint lock bench clean mutate screenshots

$(BIN)/.installed: requirements.lock
	@version="$(if $(PYTHON),$(call PYTHON_VERSION_OF,$(PYTHON)))"; case " $(SUPPORTED_PYTHON) " in *" $$version "*) ;; \
		*) echo "Python 3.11 or 3.12 is needed to build $(VENV) (found: $${version:-none} from '$(PYTHON)'); install one, or pass PYTHON=/path/to/python3.11" >&2; exit 1;; esac
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	touch $@

install: $(BIN)/.installed

# A secret key generated once, kept in an ignored file so `manage.py` keeps working without variables.
.secret_key:
	@umask 077; $(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))" > .secret_key

setup: install .secret_key
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(BIN)/python manage.py bootstrap_admin

# One worker process (with threads) keeps the in-memory rate-limit counter exact; with REDIS_URL the counter is
# shared, so WEB_CONCURRENCY worker processes may serve. Beside gunicorn runs one task worker (`manage.py db_worker`)
# that delivers the queued webhook notifications, started again by scripts/supervise whenever it exits; Ctrl-C (or
# gunicorn stopping) stops both.
run: setup serve

serve: install .secret_key
	@if [ -n "$$REDIS_URL" ]; then workers=$${WEB_CONCURRENCY:-2}; else workers=1; fi; \
	echo "Serving on http://$(HOST):$(PORT) with $$workers web worker(s) and 1 task worker; admin at /admin/, API docs at /api/docs"; \
	scripts/supervise $(BIN)/python manage.py db_worker --no-reload --verbosity 0 & task_worker=$$!; \
	trap 'kill -TERM $$task_worker 2>/dev/null; wait $$task_worker 2>/dev/null' EXIT; \
	trap 'exit 130' INT TERM; \
	$(BIN)/gunicorn assetsvc.wsgi --bind $(HOST):$(PORT) --workers $$workers --threads 8 \
		--access-logfile - --graceful-timeout 10

# One task worker alone (production runs N of these beside the web processes; README, Webhook delivery).
worker: install .secret_key
	exec $(BIN)/python manage.py db_worker --no-reload

# Retention: delete delivery-log rows and finished tasks older than WEBHOOK_LOG_RETENTION_DAYS (cron: README).
prune: install .secret_key
	$(BIN)/python manage.py prune_deliveries

# The suite runs in parallel (pytest-xdist): one process per CPU, at most 4 (each has its own test database, and
# the live drills start gunicorn processes of their own). TEST_WORKERS=0 runs it in one process; a single test:
# make test PYTEST_ARGS='tests/api/test_envelope.py -k limit' TEST_WORKERS=0. The browser tests alone:
# make test PYTEST_ARGS=tests/browser (they need Debian's chromium, else they are skipped; docs/testing.md). When npm is
# there, axe-core (the accessibility check, tests/browser/axe.py) is installed from the npm registry first.
# The 15 slowest tests are listed at the end, so a CI log shows where its minutes go (.ci/run has 25).
TEST_WORKERS ?= auto
AXE := tests/browser/npm/node_modules/axe-core/axe.min.js
test: install
	@if [ ! -f $(AXE) ] && command -v npm >/dev/null; then npm ci --prefix tests/browser/npm --no-audit --no-fund --silent || true; fi
	$(BIN)/pytest -n $(TEST_WORKERS) --maxprocesses 4 --durations=15 $(PYTEST_ARGS)

# ruff, and the one-way app layers (import-linter contract in pyproject.toml: a module imports only from its own
# layer or below, also inside functions).
lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	DEBUG=true SECRET_KEY=lint-only $(BIN)/python manage.py makemigrations --check --dry-run

# Regenerate the lock file after changing dependencies in pyproject.toml (needs uv: pip install uv).
lock:
	uv pip compile pyproject.toml --extra dev --python-version 3.11 --generate-hashes -o requirements.lock

# Mutation testing of the services, scoping and permission modules (docs/testing.md), one child process, from a
# fresh mutants/ copy. One module: make mutate MUTATE_ARGS='"inventory.services.assets.*"'. With DATABASE_URL set to
# PostgreSQL the race tests run too (they alone kill the removed-select_for_update() mutants).
mutate: install
	rm -rf mutants
	$(BIN)/python scripts/mutate.py $(MUTATE_ARGS)

# The pictures in docs/back-office.md, retaken by the browser tests that call screenshot() (tests/browser/helpers.py)
# at desktop and phone width; needs Debian's chromium.
screenshots: install
	SCREENSHOTS_DIR=docs/img BROWSER_TESTS=required $(BIN)/pytest -p no:xdist -q tests/browser

bench: install .secret_key
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) staticfiles .pytest_cache
