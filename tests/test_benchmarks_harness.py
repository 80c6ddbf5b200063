"""The benchmark harness's logic on trivial, fast cases (no real timing is asserted;
the statistics are checked with a fake clock)."""

from __future__ import annotations

import json
import os
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
    assert len(add["ratios"]) == 2 and add["ratio"] == pytest.approx(
        np.median(add["ratios"])
    )
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
    # every OpenBLAS and malloc setting, including the suite's OPENBLAS_NUM_THREADS
    for name in [k for k in os.environ if k.startswith(("OPENBLAS_", "MALLOC_"))]:
        monkeypatch.delenv(name)
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
        ["--repeat", "5", "--number", "1", "--pause", "0", "--out", str(tmp_path)],
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
    add = data["results"][0]
    assert len(add["ratios"]) == 5 and add["device"] == "cpu"
    assert add["load_max"] == max(add["load_1min"])
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


# --- the statistics: median, range and spread of the per-round ratios ---------------


def test_ratio_stats_median_range_and_spread():
    s = harness.ratio_stats([3.0, 1.0, 1.1, 1.2, 2.2], [2.5, 1.0, 1.0, 1.0, 2.0])
    assert s["ratios"] == pytest.approx([1.2, 1.0, 1.1, 1.2, 1.1])
    assert s["ratio"] == pytest.approx(1.1)  # the median, not the mean (1.12)
    assert (s["ratio_min"], s["ratio_max"]) == pytest.approx((1.0, 1.2))
    assert s["spread"] == pytest.approx(0.2) and s["unsteady"] is False
    with pytest.raises(ValueError, match="at least one round"):
        harness.ratio_stats([], [])


@pytest.mark.parametrize("spread, marked", [(0.30, True), (0.20, False)])
def test_an_unsteady_case_gets_the_warning_mark(spread, marked):
    ratios = [1.0, 1.1, 1.0 + spread]
    stats = harness.ratio_stats(ratios, [1.0, 1.0, 1.0])
    assert stats["unsteady"] is marked
    result = {
        "case": "c",
        "shape": [2],
        "dtype": "float64",
        "reference": "r",
        "device": "cpu",
        "alice_s": 1e-3,
        "reference_s": 1e-3,
        **stats,
        "load_1min": [0.5, 1.5],
        "load_max": 1.5,
        "agree": True,
        "checks": [],
        "alice_warnings": [],
        "number": 1,
        "repeat": 3,
    }
    row = next(
        line
        for line in harness.to_markdown([result], harness.machine_info()).splitlines()
        if line.startswith("| c |")
    )
    cells = row.split(" | ")
    assert cells[1] == ("1.10 ⚠" if marked else "1.10")  # the median ratio
    assert cells[3] == f"1.00–{1 + spread:.2f}" and cells[4] == "1.5"  # range, load


class FakeClock:
    """A clock that moves only when a fake kernel runs, by that kernel's duration."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def scripted_case(clock: FakeClock, log: list, alice_s: list, ref_s: list):
    """A case whose kernels take the given seconds per round (warm-up and checks
    take no time) and write their name into ``log``."""
    reg = harness.Registry()

    def kernel(name: str, durations: list):
        remaining = iter([0.0, *durations])  # the warm-up call first

        def run(x):
            log.append(name)
            clock.now += next(remaining, 0.0)
            return x

        return run

    @reg.register("scripted", reference="ref", shape=(1,), dtype="float64")
    def _(rng):
        return harness.Bench(
            alice=kernel("alice", alice_s),
            reference=kernel("reference", ref_s),
            args=(np.ones(1),),
        )

    return reg.cases["scripted"]


def test_run_case_interleaves_the_rounds_and_reports_median_and_spread(monkeypatch):
    clock, log = FakeClock(), []
    monkeypatch.setattr(harness.time, "sleep", lambda s: log.append("rest"))
    loads = iter([(0.5, 0, 0), (2.5, 0, 0)])
    monkeypatch.setattr(harness.os, "getloadavg", lambda: next(loads))
    alice_s = [2.0, 2.4, 2.2, 2.6, 2.0]
    ref_s = [2.0, 2.0, 2.0, 2.0, 1.6]  # ratios 1.0, 1.2, 1.1, 1.3, 1.25
    case = scripted_case(clock, log, alice_s, ref_s)
    r = harness.run_case(case, repeat=5, number=1, pause=0.0, clock=clock)

    warm_up, checks = ["alice", "reference"], ["alice", "reference"]
    rounds = ["rest", "alice", "rest", "reference"] * 5
    assert log == warm_up + rounds + checks  # alice, reference, alice, ...
    assert r["ratios"] == pytest.approx([1.0, 1.2, 1.1, 1.3, 1.25])
    assert r["ratio"] == pytest.approx(1.2)
    assert (r["ratio_min"], r["ratio_max"]) == pytest.approx((1.0, 1.3))
    assert r["spread"] == pytest.approx(0.3) and r["unsteady"] is True
    assert r["alice_s"] == pytest.approx(2.2) and r["reference_s"] == pytest.approx(2.0)
    assert r["load_1min"] == [0.5, 2.5] and r["load_max"] == 2.5


def test_number_divides_each_block(monkeypatch):
    clock, log = FakeClock(), []
    monkeypatch.setattr(harness.time, "sleep", lambda s: None)
    case = scripted_case(clock, log, [1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5])
    r = harness.run_case(case, repeat=2, number=2, pause=0.0, clock=clock)
    assert r["alice_s"] == pytest.approx(1.0) and r["reference_s"] == pytest.approx(0.5)
    assert r["ratios"] == pytest.approx([2.0, 2.0]) and r["unsteady"] is False


# --- devices ----------------------------------------------------------------------


def torch_registry() -> harness.Registry:
    torch = pytest.importorskip("torch")
    reg = harness.Registry()

    @reg.register("torch add", reference="torch.add", shape=(3,), dtype="float64")
    def _(rng):
        x = torch.from_numpy(rng.normal(size=3))
        return harness.Bench(
            alice=lambda x, k: x * k,
            reference=lambda x, k: torch.add(x, x),
            args=(x, 2),
            checks={"zeros": (torch.zeros(2), 2)},
        )

    return reg


def test_on_device_moves_torch_inputs_and_skips_numpy_only_cases():
    bench = torch_registry().cases["torch add"].factory(np.random.default_rng(0))
    assert harness.on_device(bench, "cpu") is bench
    moved = harness.on_device(bench, "meta")  # a device every torch build has
    assert moved.args[0].device.type == "meta" and moved.args[1] == 2
    assert moved.checks["zeros"][0].device.type == "meta"
    assert bench.args[0].device.type == "cpu"  # the original is left alone
    numpy_only = toy_registry().cases["add"].factory(np.random.default_rng(0))
    assert harness.on_device(numpy_only, "cuda") is None


def test_numpy_only_cases_are_skipped_on_cuda_with_a_note(monkeypatch):
    monkeypatch.setattr(harness.time, "sleep", lambda s: None)
    r = harness.run_case(toy_registry().cases["add"], repeat=1, device="cuda")
    assert r["skipped"].startswith("no torch tensor inputs") and "ratio" not in r
    timed = harness.run_case(torch_registry().cases["torch add"], repeat=1, number=1)
    md = harness.to_markdown([timed, r], harness.machine_info())
    assert "Not run on cuda:" in md and "- **add**: no torch tensor inputs" in md
    assert md.count("| add |") == 0 and "| torch add |" in md


@pytest.mark.parametrize("value", ["cpu", "cuda", "cuda:1"])
def test_device_option_accepts_cpu_and_cuda(value):
    from benchmarks.__main__ import device_arg

    assert device_arg(value) == value


@pytest.mark.parametrize("value", ["gpu", "cuda:", "cuda:x", "CPU", "mps"])
def test_device_option_rejects_other_values(value, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--device", value, "--out", str(tmp_path)], registry=toy_registry())
    assert exit_.value.code == 2
    assert "expected cpu, cuda or cuda:N" in capsys.readouterr().err


def test_device_cuda_without_a_gpu_is_a_clear_error(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(SystemExit) as exit_:
        main(["--device", "cuda", "--out", str(tmp_path)], registry=toy_registry())
    assert exit_.value.code == 2
    assert "torch sees no CUDA device" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written


def test_too_few_repeats_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--repeat", "4", "--out", str(tmp_path)], registry=toy_registry())
    assert "--repeat must be at least 5" in capsys.readouterr().err


def test_results_of_a_gpu_run_do_not_overwrite_the_cpu_table():
    assert harness.results_stem("cpu") == "latest"
    assert harness.results_stem("cuda") == "latest-cuda"
    assert harness.results_stem("cuda:1") == "latest-cuda1"
