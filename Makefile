# Every target sets up what it needs: `make lab`, `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test lab demo bench lint graphviz chromium

setup: $(STAMP)

# The stamp depends on pyproject.toml, so a change of dependencies re-installs and nothing else does.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[dev]'
	@$(MAKE) --no-print-directory graphviz chromium
	touch $@

# The debugger draws graphs with Graphviz's `dot` binary (the HTML views work without it, with a note).
# As root on Debian/Ubuntu we install it; otherwise we say how.
graphviz:
	@if command -v dot >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get install -y -q graphviz >/dev/null 2>&1 || \
		(apt-get update -q >/dev/null && apt-get install -y -q graphviz >/dev/null) || \
		echo "note: could not install graphviz; graph pictures fall back to lists"; \
	else echo "note: install Graphviz (apt-get install graphviz / brew install graphviz) for graph pictures"; fi

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
	$(PY) benchmarks/train_mlp.py
	$(PY) benchmarks/train_lenet.py
	$(PY) benchmarks/instrument_overhead.py

lint: setup
	$(VENV)/bin/ruff check minipaddle tests benchmarks

# The browser tests drive Debian's chromium through Playwright (nothing downloads a browser).
chromium:
	@if command -v chromium >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get install -y -q chromium >/dev/null 2>&1 || \
		(apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null) || \
		echo "note: could not install chromium; the browser tests will say so"; \
	else echo "note: install chromium (apt-get install chromium) for the browser tests"; fi
