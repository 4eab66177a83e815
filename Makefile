# One-command set-up: every target creates .venv and installs what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs
# torch is pinned here (a CPU build is on disk on our machines); pyproject.toml keeps an honest range.
TORCH  ?= torch==2.13.0

# pytest-xdist workers for the suite (`make test WORKERS=1` runs it in one process)
WORKERS ?= auto
PYTEST := $(PY) -m pytest -q -p no:cacheprovider -n $(WORKERS) --dist worksteal

.PHONY: train test test-slow test-floors test-wheel test-frameworks test-rllib test-openspiel lint format bench bench-batched docs clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[train,test]"
	touch $(STAMP)

# the doc tools (the docs extra) on top of the rest, for `make docs` only
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

train: $(STAMP)  ## train on the embedded default config, then evaluate
	$(PY) -m training.train --config configs/default.yaml --out runs/default --overwrite
	$(PY) -m training.evaluate --checkpoint runs/default/final.pt --games 200 --json runs/default/eval.json

test: $(STAMP)  ## lint + the test suite but its slow tier, on every core (pytest-xdist)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PYTEST) -m "not slow"

test-slow: $(STAMP)  ## only the slow tier (tests marked slow: the 10-turn win solve, the wheel); CI runs it
	$(PYTEST) -m slow

test-wheel: $(STAMP)  ## only the packaging test: sdist + wheel installed in a fresh venv (also in make test-slow while marked slow)
	$(PY) -m pytest -q -p no:cacheprovider tests/test_wheel.py

test-floors: $(STAMP)  ## the tests on the lowest dependency versions pyproject.toml allows (noxfile.py)
	$(VENV)/bin/nox -s floors

test-frameworks: $(STAMP)  ## TorchRL, Tianshou and AgileRL (tests/integrations/, docs/recipes/) in venvs of their own (noxfile.py)
	TORCH="$(TORCH)" $(VENV)/bin/nox -s frameworks agilerl

test-rllib: $(STAMP)  ## RLlib (tests/integrations/test_rllib.py: self-play on a local Ray) in a venv of its own (noxfile.py)
	TORCH="$(TORCH)" $(VENV)/bin/nox -s rllib

test-openspiel: $(STAMP)  ## OpenSpiel (tests/integrations/test_openspiel.py: the games as pyspiel games, playthroughs, recipe) in a venv of its own (noxfile.py)
	$(VENV)/bin/nox -s openspiel

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: $(STAMP)  ## speed of every env vs connect_four_v3, written to benchmarks/results.json
	$(PY) benchmarks/bench_envs.py

bench-batched: $(STAMP)  ## the batched engines vs raw_env and connect_four_v3: benchmarks/results_batched.json
	$(PY) benchmarks/bench_envs.py --batched

docs: $(DOCS_STAMP)  ## the documentation site into site/ (mkdocs, warnings are errors)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) runs .pytest_cache site .nox
