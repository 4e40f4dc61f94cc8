# Two commands do everything: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
INSTALLED := pyproject.toml setup.py
DEMO_STAMP := $(VENV)/.adlite-demo
TEST_STAMP := $(VENV)/.adlite-test
# pytest workers: every core by default (`make test JOBS=1` runs in one process)
JOBS ?= auto

.PHONY: demo test suite installed versions bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(DEMO_STAMP): $(INSTALLED) | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): $(INSTALLED) | $(PY)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

demo: $(DEMO_STAMP)
	$(PY) examples/seed_graphs.py
	$(PY) examples/compiler_tour.py

# ruff, the whole suite, then the product as a user installs it
test: suite installed versions

suite: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -n $(JOBS)

installed: $(TEST_STAMP)
	$(PY) .ci/installed.py

versions: $(TEST_STAMP)
	$(PY) .ci/versions.py

bench: $(TEST_STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'  # the peers (JAX); `make test` needs none
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
