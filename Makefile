# Two commands on a fresh machine with python3 and make: `make run` and `make test`. Each first sees to the system
# packages it needs (scripts/system_packages.py): as root on Debian / Ubuntu it installs what is missing, elsewhere it
# names what is missing and the command that installs it (the tests that need it then skip with that reason).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run lint test test-fast system-packages system-packages-run cache bench bench-report bench-loads bench-sessions bench-pages bench-scale bench-clicks bench-player bench-labels bench-many-runs bench-model-labels bench-slices bench-play bench-live clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The dashboard itself is installed too (editable, without its dependencies: they are the pins above), so that
# `import dialogue_dashboard` works in this venv's notebooks, a corpus plugin can depend on it, and the corpora's and
# their views' entry points are registered as an installed plugin's are (docs/python-api.md).
$(STAMP_RUN): requirements.txt pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --editable .
	touch $@

$(STAMP_TEST): requirements.txt requirements-test.txt pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -r requirements-test.txt
	$(PY) -m pip install --quiet --no-deps --editable .
	touch $@ $(STAMP_RUN)

# Port and headless mode come from Streamlit's own variables (STREAMLIT_SERVER_PORT, ...).
run: $(STAMP_RUN) system-packages-run
	$(PY) -m streamlit run server.py

# The caption fonts of the GIF / PNG exports (`make run`); everything the tests need (`make test`).
system-packages-run:
	$(PYTHON) scripts/system_packages.py run

system-packages:
	$(PYTHON) scripts/system_packages.py test

# The static checks, configured in pyproject.toml (docs/tooling.md): the linter, the type checker on
# data_access and ui, then the layer contracts. Any finding fails `make test`, and so CI.
lint: $(STAMP_TEST)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

# The type checker (half a minute of one core) runs beside the tests' first minutes, which leave a core idle
# while their workers start; its findings are printed after the tests and fail `make test` as `make lint` would.
test: system-packages $(STAMP_TEST)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports
	@$(PY) -m mypy > $(VENV)/mypy.log 2>&1 & types=$$!; \
	$(PY) -m pytest; tests=$$?; \
	wait $$types; typed=$$?; cat $(VENV)/mypy.log; \
	if [ $$tests -ne 0 ]; then exit $$tests; fi; exit $$typed

# Unit and AppTest levels only (no browser).
test-fast: system-packages lint
	$(PY) -m pytest -m "not e2e"

cache: $(STAMP_RUN)
	$(PY) -m data_access cache

# Every benchmark on the real corpora in ../shared (about 40 minutes), then every target beside its figure.
bench: $(STAMP_TEST)
	$(PY) benchmarks/run.py
	$(PY) benchmarks/runs.py
	$(PY) benchmarks/sessions.py
	$(PY) benchmarks/page_loads.py
	$(PY) benchmarks/scale.py
	$(PY) benchmarks/words.py
	$(PY) benchmarks/clicks.py
	$(PY) benchmarks/player.py $(if $(BASELINE),--baseline-root $(BASELINE))
	$(PY) benchmarks/labels.py
	$(PY) benchmarks/many_runs.py
	$(PY) benchmarks/model_labels.py
	$(PY) benchmarks/slices.py
	$(PY) benchmarks/play.py $(if $(BASELINE),--baseline-root $(BASELINE))
	$(PY) benchmarks/live.py
	$(PY) benchmarks/report.py

# A model-label import of 500,000 lines (the line budget) and the Agreement page's read of it, on SQLite and
# PostgreSQL, beside a 5,000-line import in the same run.
bench-model-labels: $(STAMP_TEST)
	$(PY) benchmarks/model_labels.py

# The target table from the results the benchmarks last wrote (benchmarks/results/).
bench-report:
	$(PY) benchmarks/report.py

# Loads, one canvas and replay reruns only (benchmarks/run.py).
bench-loads: $(STAMP_TEST)
	$(PY) benchmarks/run.py

# Ten browser sessions stepping replays at once: server CPU per step and peak memory (loopback only).
bench-sessions: $(STAMP_TEST)
	$(PY) benchmarks/sessions.py

# Every page in fresh browser sessions on a warm server, against a blank Streamlit page; then what each
# kind of element adds to a fresh page (benchmarks/element_costs.py).
bench-pages: $(STAMP_TEST)
	$(PY) benchmarks/page_loads.py
	$(PY) benchmarks/element_costs.py

# A CoDraw corpus ten times the real one (generated from it in a temporary folder) against the real one.
bench-scale: $(STAMP_TEST)
	$(PY) benchmarks/scale.py

# Click Next -> the new step settled on Replay, Compare and Present for each corpus (with a model run and
# without), beside a blank page's button click, in headless Chromium against a warm local server.
# BASELINE=<another checkout> clicks that one beside this one in the same run (the "before").
bench-clicks: $(STAMP_TEST)
	$(PY) benchmarks/clicks.py $(if $(BASELINE),--baseline-root $(BASELINE))

# The step player (issue 38): a key press → the next step drawn, beside a bare button rerun; a drag across 30
# steps; a fresh replay (BASELINE=<another checkout>: beside that one's).
bench-player: $(STAMP_TEST)
	$(PY) benchmarks/player.py $(if $(BASELINE),--baseline-root $(BASELINE))

# Labels keyed in the Replay's coding column on the real corpora: shown, stored, none lost or doubled (issue 47).
bench-labels: $(STAMP_TEST)
	$(PY) benchmarks/labels.py

# 50 CoDraw runs of every round (generated once; WORKDIR=<folder> keeps them and their cache for the next
# time): the Runs page, its comparison and leaderboard in headless Chromium beside the page with one run, the
# server's peak memory and the leaderboard command.
# A slice, a step slice, a contrast and a SQL query on the full CoDraw corpus and on ten times it, beside bare pandas
# (benchmarks/slices.py).
bench-slices: $(STAMP_TEST)
	$(PY) benchmarks/slices.py

# The Play page (issue 49): a move drawn within one frame, Done → score and the server's CPU a Done, each corpus
# (benchmarks/play.py; BASELINE=<another checkout>: played step by step beside that one).
bench-play: $(STAMP_TEST)
	$(PY) benchmarks/play.py $(if $(BASELINE),--baseline-root $(BASELINE))

# Live games (issue 50): a message sent -> shown at the partner on one server and two, and the server's CPU a message
# with 20 games at once (benchmarks/live.py).
bench-live: $(STAMP_TEST)
	$(PY) benchmarks/live.py

bench-many-runs: $(STAMP_TEST)
	$(PY) benchmarks/many_runs.py $(if $(WORKDIR),--workdir $(WORKDIR))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache
