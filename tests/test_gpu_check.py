"""tools/gpu_check.py on a CPU-only machine: the clear exit without a GPU, the stage
runner's time limit, the JUnit counts and the Markdown report from fake results."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "gpu_check.py"


def _load():
    """Import tools/gpu_check.py (tools/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_check"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


gpu_check = _load()


def fake_report(**changes) -> dict:
    report = {
        "device": {"name": "NVIDIA H200", "count": 1, "torch": "2.9.0", "cuda": "12.8"},
        "date_utc": "2026-12-03 12:00 UTC",
        "seconds": 301.4,
        "tests": {
            "status": "ok",
            "seconds": 210.5,
            "log": "pytest-cuda.log",
            "counts": {"passed": 120, "failed": 0, "errors": 0, "skipped": 7},
        },
        "benchmarks": {
            "status": "ok",
            "seconds": 60.2,
            "log": "bench-cuda.log",
            "results": [
                {
                    "case": "layer_norm",
                    "reference": "torch.nn.functional.layer_norm (CPU)",
                    "ratio": 1.05,
                    "ratio_min": 0.98,
                    "ratio_max": 1.40,
                    "unsteady": True,
                    "agree": True,
                    "alice_s": 2.1e-5,
                    "reference_s": 2.0e-5,
                },
                {
                    "case": "rms_norm",
                    "reference": "torch.nn.functional.rms_norm (CPU)",
                    "ratio": 1.50,
                    "ratio_min": 1.45,
                    "ratio_max": 1.55,
                    "unsteady": False,
                    "agree": False,
                    "alice_s": 3e-3,
                    "reference_s": 2e-3,
                },
                {"case": "logsumexp", "skipped": "no torch tensor inputs"},
            ],
        },
    }
    report.update(changes)
    return report


def test_markdown_report_from_fake_results():
    md = gpu_check.to_markdown(fake_report())
    assert "- Device: NVIDIA H200 (1 visible), CUDA 12.8, torch 2.9.0" in md
    assert "| ok | 120 | 0 | 0 | 7 | 210.5 s |" in md
    rows = [line for line in md.splitlines() if line.startswith("| layer_norm |")]
    assert rows == [
        "| layer_norm | 1.05 ⚠ | yes | 0.98–1.40 | 21.0 µs | 20.0 µs "
        "| `torch.nn.functional.layer_norm (CPU)` |"
    ]
    rms = next(line for line in md.splitlines() if line.startswith("| rms_norm |"))
    assert rms.startswith("| rms_norm | 1.50 | **NO** | 1.45–1.55 | 3.00 ms | 2.00 ms")
    assert "Not run on the GPU (no torch tensor inputs: NumPy- or JAX-only): " in md
    assert md.rstrip().endswith("logsumexp.")


def test_markdown_report_when_a_stage_timed_out():
    report = fake_report()
    report["tests"] = {"status": "timeout", "seconds": 270.0, "log": "pytest-cuda.log"}
    report["benchmarks"]["results"] = []
    md = gpu_check.to_markdown(report)
    assert "| timeout | – | – | – | – | 270.0 s |" in md
    assert "No benchmark case ran on the GPU." in md
    assert not gpu_check.passed(report)


def test_write_report_and_the_verdict(tmp_path):
    report = fake_report()
    json_path, md_path = gpu_check.write_report(report, tmp_path)
    assert json.loads(json_path.read_text()) == report
    assert md_path.read_text().startswith("# GPU check")
    assert not gpu_check.passed(report)  # rms_norm disagrees
    report["benchmarks"]["results"][1]["agree"] = True
    assert gpu_check.passed(report)
    report["tests"]["counts"]["failed"] = 1
    assert not gpu_check.passed(report)


def test_junit_counts(tmp_path):
    xml = tmp_path / "junit.xml"
    xml.write_text(
        '<?xml version="1.0"?><testsuites><testsuite name="pytest" errors="1" '
        'failures="2" skipped="3" tests="10" time="1.0"/></testsuites>'
    )
    assert gpu_check.parse_junit(xml) == {
        "passed": 4,
        "failed": 2,
        "errors": 1,
        "skipped": 3,
    }
    xml.write_text('<testsuite errors="0" failures="0" skipped="1" tests="5"/>')
    assert gpu_check.parse_junit(xml)["passed"] == 4


def test_tests_progress_keeps_percentages_failures_and_the_summary():
    assert gpu_check.tests_progress("....s.F. [ 42%]") == "tests: 42% done"
    assert gpu_check.tests_progress("FAILED tests/test_x.py::t") == (
        "tests: FAILED tests/test_x.py::t"
    )
    assert gpu_check.tests_progress("12 passed, 3 skipped in 4.0s") is not None
    assert gpu_check.tests_progress("4 skipped, 9 deselected in 1.0s") is not None
    assert gpu_check.tests_progress("collecting ...") is None


def test_tests_command_selects_cuda_tests_and_caps_workers(tmp_path):
    cmd = gpu_check.tests_command(tmp_path / "j.xml", 8)
    assert cmd[1:6] == ["-m", "pytest", "tests", "-k", "cuda"]
    assert f"--junitxml={tmp_path / 'j.xml'}" in cmd and cmd[-2:] == ["-n", "8"]
    assert "-n" not in gpu_check.tests_command(tmp_path / "j.xml", 1)
    assert 1 <= gpu_check.tests_workers() <= gpu_check.MAX_WORKERS


def test_bench_env_is_make_bench_s(monkeypatch):
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    env = gpu_check.bench_env()
    assert "OPENBLAS_CORETYPE" not in env
    assert env["MALLOC_TRIM_THRESHOLD_"] == "1073741824"


def test_run_stage_reports_ok_failure_and_timeout(tmp_path):
    lines = []
    ok = gpu_check.run_stage(
        "ok",
        [sys.executable, "-c", "print('hello')"],
        60,
        tmp_path / "ok.log",
        echo=lines.append,
    )
    assert (ok.status, ok.returncode) == ("ok", 0) and lines == ["hello"]
    assert (tmp_path / "ok.log").read_text() == "hello\n"
    failed = gpu_check.run_stage(
        "failed", [sys.executable, "-c", "raise SystemExit(3)"], 60, tmp_path / "f.log"
    )
    assert (failed.status, failed.returncode) == ("failed", 3)
    slow = gpu_check.run_stage(
        "slow",
        [sys.executable, "-c", "import time; time.sleep(30)"],
        0.5,
        tmp_path / "s.log",
    )
    assert slow.status == "timeout" and slow.returncode is None
    assert slow.seconds < 10


def test_without_cuda_main_says_so_in_one_line_and_exits_2(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.setattr(gpu_check, "cuda_device", lambda: None)
    assert gpu_check.main(["--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no CUDA device" in err
    assert not (tmp_path / "out").exists()  # nothing run, nothing written


def test_the_script_exits_2_on_a_machine_without_cuda(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().count("\n") == 0 and "no CUDA device" in run.stderr
    assert run.stdout == ""


def test_the_device_notebooks_stage_is_reported_and_counts():
    stage = {"status": "failed", "seconds": 41.0, "log": "notebooks-cuda.log"}
    md = gpu_check.to_markdown(fake_report(notebooks=stage))
    section = md.split("## Notebooks that use the device")[1]
    assert "`book/ch05_fully_connected.ipynb`" in section
    assert "failed in 41.0 s" in section
    fine = fake_report()
    fine["benchmarks"]["results"] = [fine["benchmarks"]["results"][0]]
    assert gpu_check.passed(fine)
    assert not gpu_check.passed({**fine, "notebooks": stage})
    assert gpu_check.notebooks_command()[-2:] == list(gpu_check.DEVICE_NOTEBOOKS)
