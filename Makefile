# The companion's commands. `make book` and `make test` set everything up themselves.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help setup book book-only test test-fast lab student bench lock clean doctor timing-start gpu-check test-compat

help:
	@echo "make book    build the site into _build/html (sets up .venv first)"
	@echo "make test    run the whole test suite (builds the site for the browser test)"
	@echo "make lab     open JupyterLab on the repository"
	@echo "make student regenerate the student versions of the labs"
	@echo "make bench   time alice_lab against the frameworks' kernels"
	@echo "make doctor  check the environment"
	@echo "make test-compat  lowest and newest allowed versions, each in a throwaway venv"
	@echo "make gpu-check  on a CUDA machine: CUDA parity tests + GPU benchmarks (_build/gpu-check/)"

$(STAMP): pyproject.toml requirements/lock.txt requirements/constraints.txt
	@$(PYTHON) tools/timings.py mark setup
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-compile -c requirements/constraints.txt -r requirements/lock.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	@$(PYTHON) tools/timings.py stop setup
	touch $@

setup: $(STAMP) _vendor/.stamp

# MathJax is served from the site itself, so pages typeset math with no network.
_vendor/.stamp: tools/vendor_js.sh
	bash tools/vendor_js.sh _vendor
	touch $@

doctor: $(STAMP)
	$(VENV)/bin/alice-lab doctor

book: setup
	$(PY) tools/build_book.py
	@echo "Open file://$(CURDIR)/_build/html/index.html"

# `make test` builds the quick copy of the site (ALICE_FAST=1, _build/fast), which
# executes every notebook once, two at a time (tools/notebook_runs.py); the suite then
# checks those runs (tests/test_notebooks.py: every cell ran, none raised), opens the
# built pages in Chromium, and runs the unit tests and alice_lab's doctests on two
# workers (--dist loadfile keeps a file's module fixtures on one worker; the slowest
# files go first, tests/conftest.py's SLOW_FILES, so that no worker ends alone on a
# long one). Each worker has one thread per numerical library (workers with a thread
# per core each made small torch loops several times slower). It ends with a table of
# where the time went (_build/timings.md). `make book` builds the full site.
PYTEST = OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
	$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder \
	--doctest-modules tests alice_lab alice_course

timing-start:
	@$(PYTHON) tools/timings.py mark make-test

test: timing-start setup
	@status=0; \
	$(PY) tools/build_book.py --fast || status=$$?; \
	if [ $$status -eq 0 ]; then \
	  ALICE_SITE=_build/fast/_build/html ALICE_FAST=1 $(PYTEST) || status=$$?; \
	fi; \
	$(PYTHON) tools/timings.py report --fast; \
	exit $$status

test-fast: $(STAMP)
	ALICE_FAST=1 $(PYTEST) -m "not browser"

# Two throwaway environments with the package installed as a notebook's install cell
# installs it: the lowest versions pyproject.toml allows and the newest available;
# each runs the library's unit tests and the chapter notebooks in quick mode.
test-compat:
	bash tools/test_compat.sh lowest newest

lab: setup
	$(VENV)/bin/jupyter lab --notebook-dir=.

student: $(STAMP)
	$(VENV)/bin/alice-lab make-student labs/*.py --out labs/student --force

# Some machines pin OpenBLAS to its Haswell kernels (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE)
# because old OpenBLAS builds misbehave on their CPUs; the current NumPy/SciPy builds do
# not, and the pin would compare AVX2 BLAS kernels with torch's AVX-512 ones. The
# benchmarks unset both for their own commands only (tests and CI keep them).
# glibc hands large freed blocks back to the OS, so the next call page-faults them in
# again; on a virtual machine that cost varied 10x between identical processes (batch
# norm: 0.3 to 5.7 ms). The two MALLOC_ settings keep freed memory for reuse, as a
# long-running program would. The results record all of these settings.
BENCH_ENV = env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
	MALLOC_MMAP_THRESHOLD_=268435456 MALLOC_TRIM_THRESHOLD_=1073741824

bench: $(STAMP)
	$(BENCH_ENV) $(PY) -m benchmarks
	$(BENCH_ENV) $(PY) -m benchmarks.curves
	@echo "Table and curves written to benchmarks/results/ (shown on the site's Benchmarks page)"

# On a machine with a CUDA GPU: the CUDA variants of the parity tests and the
# benchmarks on the GPU, in under 8 minutes; the script sets the benchmark settings
# for its own benchmark stage. Without a GPU it says so and exits with code 2.
gpu-check: $(STAMP)
	$(PY) tools/gpu_check.py --out _build/gpu-check

lock:
	$(PY) -m pip freeze --exclude-editable | grep -v '^alice_lab' | sed 's/+cpu$$//' > requirements/lock.tmp
	{ head -2 requirements/lock.txt; cat requirements/lock.tmp; } > requirements/lock.new && rm requirements/lock.tmp && mv requirements/lock.new requirements/lock.txt

clean:
	rm -rf _build
