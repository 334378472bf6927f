# Two entry points on a fresh machine: `make reports` (the main job) and `make test`.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip

.PHONY: install reports test bench

install:
	$(PIP) install -q -e ".[test]"

reports: install
	$(PYTHON) -m binaryeval render vignettes --output-dir reports

# (PYTHONDONTWRITEBYTECODE emptied for the tests: where it is set, as in many containers, each
# worker and each subprocess would compile the package and rewrite the test modules anew, about
# 4 s of CPU a worker at collection alone; the bytecode goes to the ignored __pycache__ folders)
test: install
	PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest -q -n auto --dist loadgroup

bench: install
	$(PYTHON) benchmarks/run_all.py
