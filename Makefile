# Every target sets up what it needs: `make lab`, `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test lab demo bench lint

setup: $(STAMP)

# The stamp depends on pyproject.toml, so a change of dependencies re-installs and nothing else does.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[dev]'
	touch $@

test: setup
	$(PY) -m pytest -q -p no:cacheprovider

# Jupyter refuses to start as root unless told; these machines and containers often run as root.
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: setup
	$(VENV)/bin/jupyter lab $(LAB_FLAGS) tutorials/

demo: setup
	$(PY) tools/run_notebooks.py tutorials --out demo_out

bench: setup
	$(PY) benchmarks/op_overhead.py
	$(PY) benchmarks/startup.py

lint: setup
	$(VENV)/bin/ruff check minipaddle tests benchmarks
