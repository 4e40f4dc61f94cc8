# Two commands do everything: `make demo` and `make test` (see README.md); `make docs` builds
# the HTML reference alone.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
INSTALLED := pyproject.toml setup.py
DEMO_STAMP := $(VENV)/.adlite-demo
TEST_STAMP := $(VENV)/.adlite-test
DOCS_STAMP := $(VENV)/.adlite-docs
CONFORMANCE_STAMP := $(VENV)/.adlite-conformance
# pytest workers: every core by default (`make test JOBS=1` runs in one process)
JOBS ?= auto

.PHONY: demo test suite docs installed versions bench conformance clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(DEMO_STAMP): $(INSTALLED) | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): $(INSTALLED) | $(PY)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(DOCS_STAMP): $(INSTALLED) | $(PY)
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $@

$(CONFORMANCE_STAMP): $(TEST_STAMP)
	$(PY) -m pip install --quiet -e '.[conformance]' autograd==1.7.0  # the sdist's tests
	touch $@

demo: $(DEMO_STAMP)
	$(PY) examples/seed_graphs.py
	$(PY) examples/compiler_tour.py

# ruff, the whole suite, the HTML reference, then the product as a user installs it
test: suite docs installed versions

suite: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -n $(JOBS)

# the HTML reference of mkdocs.yml in build/docs/site, warnings as errors; griffe reads the
# packages from build/docs/src, where each source root is linked under its installed name
docs: $(DOCS_STAMP)
	mkdir -p build/docs/src/adlite
	for root in compiler derivatives runtime; do \
		ln -sfn ../../../../$$root build/docs/src/adlite/$$root; done
	$(PY) -m mkdocs build --strict --quiet

installed: $(TEST_STAMP)
	$(PY) .ci/installed.py

versions: $(TEST_STAMP)
	$(PY) .ci/versions.py

bench: $(TEST_STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'  # the peers (JAX); `make test` needs none
	$(PY) -m benchmarks

# autograd's own test suite through adlite (README "Conformance: autograd's test suite"):
# downloads autograd's sdist, prints the tables, writes build/conformance/results.json; it
# takes tens of minutes on two cores and is not part of `make test`
conformance: $(CONFORMANCE_STAMP)
	$(PY) -m benchmarks.conformance

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
