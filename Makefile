# Developer entry points.  See README.md.
SHELL := /bin/bash

VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NATIVE := $(VENV)/.solver-native

TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/klondike
TEST_REDIS_URL    ?= redis://127.0.0.1:6379/0

.PHONY: venv solver messages catalogs run services tools test bench stack stack-stop stack-restart

## venv: create .venv (if missing) and install the project + test extras;
##       reinstalls only when pyproject.toml is newer than .venv/.installed
venv: $(STAMP)

$(PY):
	python3 -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test,native,bench]'
	touch $(STAMP)

## solver: compile the solver with mypyc and its C core (scripts/build-solver.sh); redone when
##         search.py, _core.c or the engine changes (a stale build is never used: solver/sources.py)
solver: $(NATIVE)

$(NATIVE): solver/search.py solver/_core.c solver/sources.py $(wildcard engine/*.py) scripts/build-solver.sh $(STAMP)
	scripts/build-solver.sh $(PY)
	touch $(NATIVE)

## catalogs: compile the Italian and Spanish catalogs (locale/*/LC_MESSAGES/*.po -> .mo,
##           scripts/compile_messages.py; redone when a .po changes)
PO := $(wildcard locale/*/LC_MESSAGES/*.po)
catalogs: $(PO:.po=.mo)

locale/%.mo: locale/%.po $(STAMP)
	$(PY) scripts/compile_messages.py $<

## messages: refresh the catalogs from the code (makemessages: templates, Python,
##           JavaScript) for translators; needs GNU gettext (apt-get install gettext)
MAKEMESSAGES := $(PY) manage.py makemessages -l it -l es --no-obsolete --no-location \
	-i '.venv/*' -i 'staticfiles/*' -i 'tests/*' -i 'bench/*' -i 'test-artifacts/*' -i 'deploy/*' -i 'scripts/*'
messages: venv
	SECRET_KEY=makemessages-only DATABASE_URL= $(MAKEMESSAGES) -d django
	SECRET_KEY=makemessages-only DATABASE_URL= $(MAKEMESSAGES) -d djangojs

## run: migrate and serve on http://127.0.0.1:8000 (SQLite + in-memory layer
##      unless DATABASE_URL / REDIS_URL are set; DEBUG defaults to true here)
run: venv catalogs
	@$(MAKE) --no-print-directory solver || echo "make run: the solver stays pure Python (slower)" >&2
	export DEBUG="$${DEBUG:-true}"; \
	$(PY) manage.py migrate --noinput && \
	export ACCESS_LOG="$${ACCESS_LOG:-true}"; \
	exec $(PY) -m config.serve -b 127.0.0.1 -p 8000 --access-log /dev/null config.asgi:application

## stack: the production topology here, without Docker: nginx with TLS on
##        https://localhost:8443 in front of 3 web processes, 2 solver workers, the
##        local PostgreSQL and Redis (deploy/stack.py). Ctrl-C stops it cleanly.
stack: venv catalogs services tools
	@$(MAKE) --no-print-directory solver || echo "make stack: the solver stays pure Python (slower)" >&2
	exec $(PY) -m deploy.stack up

## stack-stop: stop a running `make stack` from another terminal
stack-stop:
	$(PY) -m deploy.stack down

## stack-restart: restart the stack's web processes one at a time (each drains first)
stack-restart:
	$(PY) -m deploy.stack restart-web

## services: make sure local PostgreSQL and Redis are running
services:
	scripts/services.sh

## tools: make sure the Debian packages the tests drive are there (Chromium, a compose client)
tools:
	scripts/test-tools.sh

## test: whole suite against real PostgreSQL and Redis.  pytest's exit code is
##       passed through unchanged (5 = no tests collected is a failure).
test: venv solver catalogs services tools
	export DATABASE_URL="$${DATABASE_URL:-$(TEST_DATABASE_URL)}"; \
	export REDIS_URL="$${REDIS_URL:-$(TEST_REDIS_URL)}"; \
	export REDIS_CACHE_URL="$${REDIS_CACHE_URL:-redis://127.0.0.1:6379/2}"; \
	export SECRET_KEY="$${SECRET_KEY:-insecure-test-only-key}"; \
	export TEST_DATABASE_NAME="$${TEST_DATABASE_NAME:-test_klondike_$$$$}"; \
	exec $(VENV)/bin/pytest $(PYTEST_ARGS)

## bench: engine micro-benchmarks (bench/engine.py)
bench: venv
	$(PY) bench/engine.py
