# tablevar: `make demo` plays the demo recording, `make test` runs every check.
# Both create .venv on first use and reinstall the project only when pyproject.toml changes.

VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test

demo: $(STAMP)
	$(BIN)/tablevar demo

test: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -n auto  # one worker per core

$(STAMP): pyproject.toml
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

# demo-recording: renders recordings/demo with the simulator (its recipe lives with the simulator).
.PHONY: demo-recording
demo-recording: $(STAMP)
	$(BIN)/tablevar simulate demo --out recordings/demo --seed 1
