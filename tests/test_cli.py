"""The ``alice-lab`` command: doctor's exit status and lines, make-student, --check."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from alice_course import cli, doctor

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab02_gradient_descent.py"


def test_doctor_on_this_machine(capsys):
    code = cli.main(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    checks = lines[:-1]
    assert len(checks) == len(doctor.PROBES) + len(doctor.version_checks())
    assert all(ln.startswith(("OK  ", "FAIL")) for ln in checks)
    failed = [ln for ln in checks if ln.startswith("FAIL")]
    assert code == (1 if failed else 0)
    assert lines[-1] == (
        "some checks failed (see FAIL lines)" if failed else "all good"
    )


def test_doctor_exits_1_on_a_failure(capsys, monkeypatch):
    def broken():
        raise ImportError("no module named 'imaginary'")

    monkeypatch.setattr(
        doctor, "PROBES", [("python", lambda: "3.x"), ("thing", broken)]
    )
    assert cli.main(["doctor"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("OK   python")
    assert out[1].startswith("FAIL thing") and "ImportError: no module named" in out[1]
    monkeypatch.setattr(doctor, "PROBES", [("python", lambda: "3.x")])
    assert cli.main(["doctor"]) == 0
    too_old = doctor.check_bound("numpy", "numpy>=99")
    monkeypatch.setattr(doctor, "version_checks", lambda: [too_old])
    assert cli.main(["doctor"]) == 1
    assert "numpy>=99" in capsys.readouterr().out


def test_make_student_write_force_and_check(tmp_path, capsys):
    out = tmp_path / "student"
    assert cli.main(["make-student", str(SOURCE), "--out", str(out)]) == 0
    written = out / "lab02_gradient_descent.ipynb"
    assert f"wrote {written}" in capsys.readouterr().out

    assert cli.main(["make-student", str(SOURCE), "--out", str(out)]) == 1
    assert "--force" in capsys.readouterr().err
    assert cli.main(["make-student", str(SOURCE), "--out", str(out), "--force"]) == 0

    assert cli.main(["make-student", str(SOURCE), "--out", str(out), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    written.write_text(written.read_text().replace("Exercise 2.1", "Exercise 2.one"))
    assert cli.main(["make-student", str(SOURCE), "--out", str(out), "--check"]) == 1
    assert "OUT OF DATE" in capsys.readouterr().err
    written.unlink()
    assert cli.main(["make-student", str(SOURCE), "--out", str(out), "--check"]) == 1


def test_make_student_refusal_is_an_error_line(tmp_path, capsys):
    (tmp_path / "lab02_gradient_descent.ipynb").write_text("{}")
    assert (
        cli.main(["make-student", str(SOURCE), "--out", str(tmp_path), "--force"]) == 1
    )
    assert capsys.readouterr().err.startswith("error: refusing to overwrite")
    assert (tmp_path / "lab02_gradient_descent.ipynb").read_text() == "{}"
    assert (
        cli.main(["make-student", str(tmp_path / "missing.py"), "--out", str(tmp_path)])
        == 1
    )


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["make-student", str(SOURCE)])  # --out is required
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        cli.main([])


def test_installed_script_checks_the_committed_notebook():
    script = shutil.which("alice-lab", path=str(Path(sys.executable).parent))
    assert script, "the alice-lab entry point is not installed in this environment"
    done = subprocess.run(
        [
            script,
            "make-student",
            "labs/lab02_gradient_descent.py",
            "--out",
            "labs/student",
            "--check",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "up to date: labs/student/lab02_gradient_descent.ipynb" in done.stdout
