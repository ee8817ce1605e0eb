# Two commands set the hub up on a machine with Python 3.11 and make:
#   make run    create .venv, install the hub, serve on ./hub-data
#   make test   create .venv with the test extras, run ruff, mypy, the import contracts and the whole suite
#   make check  the inner loop: the same checks, then the suite on SQLite only, without the tests that
#               drive Chromium (marked browser) or take minutes (marked long): a few minutes at most
#   make demo   a hub, the demo Jira and hub-agent on loopback: one refresh, one fetch, a summary
#   make demo-keep  the same, then kept running for browsing (the URL and a token printed) until Ctrl-C
#                   (also: make demo KEEP=1)
# Three test processes, each taking whole modules (a module's browser and servers stay in one):
# most of a test's time is spent waiting on the processes, servers and browser it drives, so
# three keep two cores busy. Modules go out in the order tests/conftest.py gives them (the ones
# marked long first), not xdist's (the most tests first), which left the modules of few but long
# tests to the end. PYTEST_ARGS= runs the suite in one process, PYTEST_ARGS="tests/test_x.py"
# one module.
PYTEST_ARGS ?= -n 3 --dist loadfile --no-loadscope-reorder
# make check's selection: HUB_TEST_BACKENDS=sqlite runs each test once, on SQLite (see tests/conftest.py).
CHECK_ARGS ?= -n 3 --dist loadfile --no-loadscope-reorder -m "not browser and not long"
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test check demo demo-keep bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --editable .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --editable '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/hub serve

# The project's own modules compiled ahead: a run starts hundreds of Python processes (hub serve,
# hub-agent, the CLI, the test workers), and where PYTHONDONTWRITEBYTECODE is set none may write
# the .pyc it compiles, so each compiled every module again (0.4 s of CPU per hub process).
COMPILED := hub agent worker devservers demo bench tests

test: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m compileall -q $(COMPILED)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

check: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m compileall -q $(COMPILED)
	HUB_TEST_BACKENDS=sqlite $(BIN)/python -m pytest $(CHECK_ARGS)

demo: $(VENV)/.installed-run
	$(BIN)/python demo/run.py $(if $(KEEP),--keep)

demo-keep: $(VENV)/.installed-run
	$(BIN)/python demo/run.py --keep

# bench/web.py drives Chromium with Playwright, of the test extras.
bench: $(VENV)/.installed-test
	$(BIN)/python bench/migrate.py
	$(BIN)/python bench/states.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/page.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/transfer.py
	$(BIN)/python bench/longpoll.py
	$(BIN)/python bench/nodes.py
	$(BIN)/python bench/wakeups.py
	$(BIN)/python bench/claims.py
	$(BIN)/python bench/refresh.py
	$(BIN)/python bench/jira_requests.py
	$(BIN)/python bench/writes.py
	$(BIN)/python bench/backup.py
	$(BIN)/python bench/metrics.py
	$(BIN)/python bench/jql.py
	$(BIN)/python bench/web.py

clean:
	rm -rf $(VENV) build *.egg-info
