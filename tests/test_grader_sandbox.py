"""The sandbox's pieces that decide what the worker may see and which level it got."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from alice_course.grading import sandbox


def test_closed_ancestors_name_the_way_back_to_python():
    base = Path(tempfile.mkdtemp(dir="/tmp"))  # pytest's tmp_path sits in a 0700 dir
    try:
        base.chmod(0o755)
        closed = base / "home"
        inside = closed / "pyenv" / "versions" / "3.11"
        inside.mkdir(parents=True)
        closed.chmod(0o700)
        got = sandbox._closed_ancestors([str(inside), "/usr/bin"])
        assert got == {str(closed): [str(closed / "pyenv")]}
    finally:
        shutil.rmtree(base)


def test_private_directories_are_hidden_unless_they_hold_python(tmp_path):
    keep = sandbox._keep_visible()
    assert sys.prefix in keep
    private = [tmp_path / "hidden", tmp_path / "missing", "/"]
    (tmp_path / "hidden").mkdir()
    assert sandbox._maskable(private, keep) == [str((tmp_path / "hidden").resolve())]
    assert sandbox._maskable([sys.prefix, os.path.dirname(sys.prefix)], keep) == []


def test_environment_is_an_allow_list(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    env = sandbox._environment("/scratch")
    assert "secret" not in " ".join(env.values())
    assert env["HOME"] == env["TMPDIR"] == "/scratch"
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"
    assert env["CUDA_VISIBLE_DEVICES"] == ""


def test_levels():
    full = {
        "network": "namespace with interfaces ['lo'] (loopback up)",
        "filesystem": "mount namespace: ...",
        "user": "uid 65534 (nobody), no supplementary groups",
        "memory": "watchdog at 2048 MB, cgroup v1 hard limit at 2624 MB",
    }
    assert sandbox.level(full) == (3, "full")
    assert sandbox.level(full | {"user": "unchanged (uid 1000)"}) == (2, "namespaces")
    fallback = {
        "network": "no namespace: only the audit hook refuses outside connections",
        "filesystem": "no mount namespace: ...",
        "user": "unchanged (uid 0)",
        "memory": "watchdog: ...",
    }
    assert sandbox.level(fallback) == (1, "process")
    assert sandbox.level({}) == (1, "process")
