# Everything a fresh clone needs, with only Python (>= 3.11) and make on the machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test demo bench fuzz lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

demo: $(STAMP)
	$(BIN)/streamparse demo

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/pathological.py

fuzz: $(STAMP)
	$(BIN)/python benchmarks/fuzz.py --inputs 1000000

lint: $(STAMP)
	$(BIN)/ruff check streamparse tests benchmarks examples
	$(BIN)/ruff format --check streamparse tests benchmarks examples
	$(BIN)/mypy streamparse
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
