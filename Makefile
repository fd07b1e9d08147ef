# The two commands a new user types first. Each sets up its own virtualenv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv clean screenshots

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m wikigen.demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

# docs/graph.png and docs/growth.png (README) from the demo wiki, through headless Chromium (apt-get install -y
# chromium; fonts-nanum for the Korean labels)
screenshots: $(STAMP)
	$(BIN)/python -m wikigen.web.screenshots --out docs

clean:
	rm -rf $(VENV) demo-out
