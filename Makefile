# Every target sets up what it needs: `make lab`, `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test test-gpu lab demo bench lint graphviz chromium labextension

setup: $(STAMP) labextension

# The stamp depends on pyproject.toml, so a change of dependencies re-installs and nothing else does.
# The build backend (hatchling) is installed first and used from the venv; the lab extension is
# built below, so the editable install skips hatch-jupyter-builder's own JS build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install 'hatchling>=1.27' 'hatch-jupyter-builder>=0.9'
	@# the wheel's shared-data would be written through the link below into the build output
	if [ -L $(SHARE_EXT) ]; then rm $(SHARE_EXT); fi
	SKIP_JUPYTER_BUILDER=1 $(PY) -m pip install --no-build-isolation -e '.[dev]'
	@$(MAKE) --no-print-directory graphviz chromium
	touch $@

# ---- the JupyterLab extension (notebook_ext/, TypeScript) ----
# jlpm is the yarn that ships with JupyterLab; its scripts call `python` and `jlpm`, so the venv
# comes first on PATH. Node modules are installed from the committed yarn.lock (--immutable), and
# rebuilt only when package.json or the lock changes; the extension only when its sources change.
EXT := notebook_ext
LABEXT := minipaddle/labextension
JLPM := cd $(EXT) && PATH="$(CURDIR)/$(VENV)/bin:$$PATH" jlpm
EXT_SOURCES := $(EXT)/package.json $(EXT)/yarn.lock $(EXT)/tsconfig.json $(EXT)/build_labextension.py \
	$(wildcard $(EXT)/src/*.ts) $(wildcard $(EXT)/style/*)
SHARE_EXT := $(VENV)/share/jupyter/labextensions/minipaddle

$(EXT)/node_modules/.yarn-state.yml: $(EXT)/package.json $(EXT)/yarn.lock | $(STAMP)
	@command -v node >/dev/null || { echo "error: Node.js (>= 20) builds the JupyterLab extension: install it" \
		"(apt-get install nodejs / https://nodejs.org) and run make again"; exit 1; }
	$(JLPM) install --immutable
	touch $@

$(LABEXT)/package.json: $(EXT)/node_modules/.yarn-state.yml $(EXT_SOURCES)
	$(JLPM) build:prod
	touch $@

# the editable install's equivalent of `jupyter labextension develop`: JupyterLab finds the
# extension through a link to the build output, so a rebuild needs no reinstall
labextension: $(LABEXT)/package.json
	@if [ "$$(readlink $(SHARE_EXT))" != "$(CURDIR)/$(LABEXT)" ]; then \
		mkdir -p $(dir $(SHARE_EXT)) && rm -rf $(SHARE_EXT) && ln -s $(CURDIR)/$(LABEXT) $(SHARE_EXT) && \
		echo "linked $(SHARE_EXT) -> $(LABEXT)"; fi

# The debugger draws graphs with Graphviz's `dot` binary (the HTML views work without it, with a note).
# As root on Debian/Ubuntu we install it; otherwise we say how.
graphviz:
	@if command -v dot >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get install -y -q graphviz >/dev/null 2>&1 || \
		(apt-get update -q >/dev/null && apt-get install -y -q graphviz >/dev/null) || \
		echo "note: could not install graphviz; graph pictures fall back to lists"; \
	else echo "note: install Graphviz (apt-get install graphviz / brew install graphviz) for graph pictures"; fi

# tests/device/cuda runs in a process of its own: numba's CUDA simulator (no GPU here) must be switched
# on before numba is imported, and it must not make the rest of the suite believe a GPU is present.
test: setup
	$(JLPM) test
	$(PY) -m pytest -q -p no:cacheprovider --ignore=tests/device/cuda
	$(PY) -m pytest -q -p no:cacheprovider tests/device/cuda

test-gpu: setup
	$(PY) -m pytest -q -p no:cacheprovider tests/device/cuda

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
	$(PY) benchmarks/train_resnet.py
	$(PY) benchmarks/instrument_overhead.py
	$(PY) benchmarks/profiler_overhead.py
	$(PY) benchmarks/static_vs_eager.py
	$(PY) benchmarks/autotune.py
	$(PY) benchmarks/to_static.py
	$(PY) benchmarks/pool_conv_kernels.py
	$(PY) benchmarks/conv_layout.py
	$(PY) benchmarks/linalg_bench.py
	$(PY) benchmarks/sparse_bench.py
	$(PY) benchmarks/debugger_render.py

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
