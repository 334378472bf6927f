# Two entry points on a fresh machine: `make reports` (the main job) and `make test`.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip

.PHONY: install reports test bench

install:
	$(PIP) install -q -e ".[test]"

reports: install
	$(PYTHON) -m binaryeval render vignettes --output-dir reports

test: install
	$(PYTHON) -m pytest -q -n auto --dist loadgroup

bench: install
	$(PYTHON) benchmarks/run_all.py
