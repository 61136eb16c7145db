# Everything a fresh clone needs, with only Python (>= 3.11) and make on the machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help test test-compiled compile test-browser demo bench bench-quick bench-proxy bench-memory fuzz lint docs clean test-vllm vllm-baseline bench-vllm engine-suite sglang-suite

# `make help`: one line per target (the text after `##` on its line), with how long the slow ones take.
help:  ## this list
	@awk -F':[^#]*## ' '/^[a-z][a-z-]*:.*## / { printf "  make %-14s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

test: $(STAMP)  ## the whole test suite (creates .venv first, ~1-2 min; the suite: ~3 min of CPU, 10 min on a busy 2-core machine)
	$(BIN)/python -m pytest -q

# The parsing core compiled with mypyc (scripts/compile.py) into a copy of the package; the source tree stays
# pure Python. Needs a C compiler; a copy built from the same sources is reused.
COMPILED := .cache/compiled
compile: $(STAMP)  ## the parsing core compiled with mypyc into .cache/compiled (needs a C compiler; ~1 min)
	$(BIN)/python scripts/compile.py --into $(COMPILED)

test-compiled: compile  ## the whole test suite against the compiled core, with the compiled wheel built and installed (~5 min)
	STREAMPARSE_EXPECT_COMPILED=1 PYTHONPATH=$(COMPILED) $(BIN)/python -P -m pytest -q

# The playground in a real browser: Debian's chromium and chromedriver (apt-get when run as root and they are
# missing; never a downloaded browser), driven by selenium (the `browser` extra). Screenshots: .artifacts/browser.
BROWSER_STAMP := $(VENV)/.browser
$(BROWSER_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[browser]"
	touch $(BROWSER_STAMP)

test-browser: $(BROWSER_STAMP)  ## the playground in a real browser (chromium + chromedriver via apt-get as root)
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	  else \
	    echo "test-browser needs chromium and chromedriver: sudo apt-get install -y chromium chromium-driver"; exit 1; \
	  fi; \
	fi
	$(BIN)/python -m pytest -q tests_browser

# The docs site (mkdocs-material + mkdocstrings, in the test extra): built offline into site/, and any
# warning (a broken link, a missing page or snippet) fails the build.
docs: $(STAMP)  ## build the docs site into site/, strict: a broken link fails (~25 s)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

demo: $(STAMP)  ## replay a bundled model stream in the terminal
	$(BIN)/streamparse demo

# Every ratio with its goal (issue 19), CPU time. QUICK=1 (or `make bench-quick`): under 2 minutes of CPU.
# benchmarks/bench.py says how long it takes before it starts, and its own duration (wall and CPU) at the end.
QUICK ?=
BENCH_FLAGS := $(if $(QUICK),--quick,)
bench: $(STAMP)  ## every performance ratio with its goal, CPU time (~16 min of CPU, ~35 min on a busy machine; QUICK=1: ~1 min of CPU, ~2 min)
	$(BIN)/python benchmarks/bench.py $(BENCH_FLAGS) $(if $(TEMPLATES),--templates $(TEMPLATES),)

bench-quick:  ## make bench QUICK=1: every ratio, under 2 minutes
	$(MAKE) bench QUICK=1

# Bytes a buffered call holds per argument character: 1/10/50 MB, 1- and 64-char chunks, tracemalloc and RSS.
bench-memory: $(STAMP)  ## bytes a buffered call holds per argument character, 1/10/50 MB (~4 min of CPU; QUICK=1: ~10 s)
	-$(BIN)/python benchmarks/call_memory.py $(BENCH_FLAGS)

# streamparse serve against a bare pass-through proxy: CPU per chunk, 500 concurrent streams (~45 s).
bench-proxy: $(STAMP)  ## streamparse serve against a bare proxy, 500 concurrent streams (~45 s)
	$(BIN)/python benchmarks/proxy.py

fuzz: $(STAMP)  ## the long fuzzing campaign, a million inputs (~30 min on 2 cores: 300-700 inputs/s per core measured)
	$(BIN)/python benchmarks/fuzz.py --inputs 1000000

lint: $(STAMP)  ## ruff check + format check, mypy strict, the import contracts (~10 s of CPU, ~50 s on a busy machine)
	$(BIN)/ruff check streamparse tests tests_browser benchmarks examples
	$(BIN)/ruff format --check streamparse tests tests_browser benchmarks examples
	$(BIN)/mypy streamparse
	$(BIN)/lint-imports

# vLLM 0.33 + SGLang 0.5.23 on CPU torch, without their dependency trees (scripts/engine_env.sh).
ENGINE_VENV  := .venv-vllm
ENGINE_STAMP := $(ENGINE_VENV)/.installed
ENGINE_TESTS := STREAMPARSE_ENGINE_TESTS=1 $(ENGINE_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/integrations

$(ENGINE_STAMP): scripts/engine_env.sh scripts/engine-requirements.txt pyproject.toml
	bash scripts/engine_env.sh $(ENGINE_VENV)
	touch $(ENGINE_STAMP)

# The adapters against the engines' cases (tests/integrations, which `make test` does not collect).
test-vllm: $(ENGINE_STAMP)  ## the vLLM/SGLang adapters against the engines (installs CPU engines first: many minutes)
	$(ENGINE_TESTS)

# The engines' own parsers on the same cases: the baseline the adapters are compared with (failures expected).
vllm-baseline: $(ENGINE_STAMP)  ## the engines' own parsers on the same cases, for comparison
	-STREAMPARSE_ENGINE_BASELINE=1 $(ENGINE_TESTS) -rf

# vLLM's own test files (tests/tool_parsers, tests/reasoning of its 0.33.0 sdist, fetched into .cache/) run
# unchanged on vLLM's parsers and on the adapters; writes the per-file table into docs/integrations.md and
# fails on an engine-only pass not listed in tests/integrations/engine_suite_expected.json.
engine-suite: $(ENGINE_STAMP)  ## vLLM's own parser test files through the adapters (~2 min)
	$(ENGINE_VENV)/bin/python scripts/engine_suite.py --write-docs

# SGLang's own detector test files (only in its git repository: tests/integrations/sglang_suite_manifest.json
# names the commit; the files go in .cache/sglang-tests, `scripts/sglang_suite.py --from-git CLONE`) run unchanged on
# SGLang's detectors and on streamparse's; writes its table into docs/integrations.md. Without the files it says
# so and exits 0 without running anything.
sglang-suite: $(ENGINE_STAMP)  ## SGLang's detector test files on SGLang's detectors and on streamparse's (~1 min)
	$(ENGINE_VENV)/bin/python scripts/sglang_suite.py --write-docs

bench-vllm: $(ENGINE_STAMP)  ## time the vLLM adapter
	$(ENGINE_VENV)/bin/python benchmarks/vllm_adapter.py

clean:  ## remove the venvs, builds, site/ and caches
	rm -rf $(VENV) $(ENGINE_VENV) .cache build dist site *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
