# Two commands do everything: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.adlite-installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/seed_graphs.py
	$(PY) examples/compiler_tour.py

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'  # the peers (JAX); `make test` needs none
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
