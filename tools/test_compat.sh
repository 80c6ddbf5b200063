#!/usr/bin/env bash
# `make test-compat`: the package installed the way a notebook's install cell installs
# it (`pip install "alice_lab[torch,jax]"`, not editable), in two throwaway virtual
# environments: the lowest versions pyproject.toml allows (requirements/lowest.txt)
# and the newest the package index has. Each runs the library's unit tests and the
# chapter notebooks in quick mode (ALICE_FAST=1). Results: _build/compat/<kind>.log and
# a summary line per environment at the end.
#
#   bash tools/test_compat.sh [lowest] [newest]
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
OUT=_build/compat
mkdir -p "$OUT"
# the library's tests; the site, lab, grader and repository checks need the dev setup
TESTS=$(ls tests/test_*.py | grep -Ev \
  'test_(site|lint|notebooks|api_reference|companion_links|gpu_check|benchmarks_harness|pairing|grader|lab|labs|cli|dependencies)' )
summary=()
for kind in "${@:-lowest newest}"; do
  for k in $kind; do
    env="$OUT/$k-venv" log="$OUT/$k.log"
    rm -rf "$env" && "$PYTHON" -m venv "$env"
    pins=(-c requirements/constraints.txt)
    [ "$k" = lowest ] && pins+=(-c requirements/lowest.txt)
    start=$(date +%s)
    {
      echo "== $k: pip install .[torch,jax] (${pins[*]})"
      "$env/bin/pip" install -q "${pins[@]}" ".[torch,jax]" \
        pytest pytest-xdist array-api-strict nbclient ipykernel jupyter-cache pyyaml \
        && "$env/bin/pip" freeze | grep -iE \
          '^(numpy|scipy|matplotlib|array.api.compat|jax|jaxlib|torch|scikit.learn|networkx)=='
    } >"$log" 2>&1 || { summary+=("$k: install FAILED (see $log)"); continue; }
    echo "== $k: unit tests" >>"$log"
    (cd "$OUT" && ALICE_FAST=1 OMP_NUM_THREADS=1 "../../$env/bin/python" -m pytest -q \
       -n 2 -p no:cacheprovider -W ignore::pytest.PytestConfigWarning \
       --rootdir ../.. -c ../../pyproject.toml \
       $(for t in $TESTS; do echo "../../$t"; done)) >>"$log" 2>&1
    tests=$?
    echo "== $k: chapter notebooks (quick)" >>"$log"
    ALICE_BUILD_DIR="$OUT/$k-runs" "$env/bin/python" tools/notebook_runs.py --fast \
      --force $(ls book/ch*.ipynb book/app*.ipynb) >>"$log" 2>&1
    notebooks=$?
    passed=$(grep -Eo '[0-9]+ passed' "$log" | tail -1)
    failed=$(grep -Eo '[0-9]+ failed' "$log" | tail -1)
    nb_ok=$(grep -c '^  ok ' "$log"); nb_bad=$(grep -c '^  FAILED' "$log")
    summary+=("$k: unit tests ${passed:-0 passed}${failed:+, $failed} (exit $tests);"\
" notebooks $nb_ok ok, $nb_bad failed (exit $notebooks); $(( $(date +%s) - start )) s")
  done
done
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
! grep -q -E 'FAILED|exit [1-9]' "$OUT/summary.txt"
