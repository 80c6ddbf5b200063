"""The benchmark harness's logic on trivial, fast cases (no timing is asserted)."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `benchmarks/` is a folder of the repo, not installed
    sys.path.insert(0, str(ROOT))

from benchmarks import harness  # noqa: E402
from benchmarks.__main__ import main  # noqa: E402


def toy_registry() -> harness.Registry:
    reg = harness.Registry()

    @reg.register("add", reference="numpy.add", shape=(3,), dtype="float64")
    def _add(rng):
        x = rng.normal(size=3)
        return harness.Bench(
            alice=lambda x: x + x,
            reference=lambda x: np.add(x, x),
            args=(x,),
            checks={"inf and NaN": (np.array([np.inf, -np.inf, np.nan]),)},
        )

    @reg.register("wrong", reference="numpy.negative", shape=(3,), dtype="float64")
    def _wrong(rng):
        return harness.Bench(
            alice=lambda x: x, reference=np.negative, args=(np.ones(3),)
        )

    @reg.register("noisy", reference="numpy.log", shape=(2,), dtype="float64")
    def _noisy(rng):
        def log_that_warns(x):
            warnings.warn("careful", RuntimeWarning, stacklevel=1)
            return np.log(x)

        return harness.Bench(
            alice=log_that_warns, reference=np.log, args=(np.array([1.0, 2.0]),)
        )

    return reg


def test_registry_rejects_duplicates_and_filters():
    reg = toy_registry()
    assert [c.name for c in reg.select()] == ["add", "wrong", "noisy"]
    assert [c.name for c in reg.select("dd")] == ["add"]
    with pytest.raises(ValueError, match="registered twice"):
        reg.register("add", reference="x", shape=(1,), dtype="float64")(
            lambda rng: None
        )


def test_run_case_reports_agreement_times_and_warnings():
    reg = toy_registry()
    add = harness.run_case(reg.cases["add"], repeat=2, number=1)
    assert add["agree"] is True
    assert [c["input"] for c in add["checks"]] == ["timed input", "inf and NaN"]
    assert add["alice_s"] > 0 and add["reference_s"] > 0
    assert add["ratio"] == pytest.approx(add["alice_s"] / add["reference_s"])
    assert add["alice_warnings"] == []

    wrong = harness.run_case(reg.cases["wrong"], repeat=1, number=1)
    assert wrong["agree"] is False and "Mismatch" in wrong["checks"][0]["detail"]

    noisy = harness.run_case(reg.cases["noisy"], repeat=1, number=1)
    assert noisy["agree"] is True and "careful" in noisy["alice_warnings"][0]


def test_run_case_rests_before_every_timed_block(monkeypatch):
    rests = []
    monkeypatch.setattr(harness.time, "sleep", rests.append)
    harness.run_case(toy_registry().cases["add"], repeat=3, number=1, pause=0.05)
    assert rests == [0.05] * 6  # one before each side's block, three repeats


def test_machine_info_records_the_blas_kernels_and_openblas_settings(monkeypatch):
    pytest.importorskip("threadpoolctl")
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    info = harness.machine_info()
    assert info["openblas_env"]["OPENBLAS_CORETYPE"] == "Haswell"
    assert info["blas"] and all(b.get("architecture") for b in info["blas"])
    text = harness.to_markdown([], info)
    assert "OPENBLAS_CORETYPE=Haswell" in text and "kernels" in text
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    monkeypatch.delenv("OPENBLAS_L2_SIZE", raising=False)
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    defaults = harness.to_markdown([], harness.machine_info())
    assert "own CPU detection, glibc's defaults" in defaults


def test_compare_handles_shapes_nan_and_inf():
    assert harness.compare(
        np.array([np.nan, np.inf]), np.array([np.nan, np.inf]), 1e-12, 0
    )[0]
    assert not harness.compare(np.array([np.nan]), np.array([0.0]), 1e-12, 0)[0]
    ok, detail = harness.compare(np.zeros(2), np.zeros(3), 1e-12, 0)
    assert not ok and "shapes differ" in detail


def test_main_writes_json_and_markdown(tmp_path, capsys):
    code = main(
        ["--repeat", "1", "--number", "1", "--pause", "0", "--out", str(tmp_path)],
        registry=toy_registry(),
    )
    assert code == 1  # the "wrong" case disagrees
    data = json.loads((tmp_path / "latest.json").read_text())
    assert [r["case"] for r in data["results"]] == ["add", "wrong", "noisy"]
    assert data["machine"]["cpu_count"] >= 1 and "numpy" in data["machine"]["versions"]
    md = (tmp_path / "latest.md").read_text()
    add_row = next(line for line in md.splitlines() if line.startswith("| add |"))
    assert add_row.endswith("| `numpy.add` | 3 | float64 |")
    assert add_row.split(" | ")[2] == "yes"  # ratio, then agreement
    assert "**NO**" in md and "CPUs" in md and "numpy " in md
    assert not list(tmp_path.glob("*.tmp"))
    assert "ratio" in capsys.readouterr().out


def test_main_with_a_filter_that_matches_nothing(tmp_path):
    with pytest.raises(SystemExit):
        main(["-k", "nothing", "--out", str(tmp_path)], registry=toy_registry())


def test_discovery_registers_the_logsumexp_case():
    names = harness.discover()
    assert "bench_logsumexp" in names
    case = harness.REGISTRY.cases["logsumexp"]
    assert case.reference == "scipy.special.logsumexp"
    assert case.shape == (4096, 1024) and case.dtype == "float64"
