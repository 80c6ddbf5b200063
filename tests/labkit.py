"""Helpers the lab tests share: run a lab notebook in a kernel and read its outputs."""

from __future__ import annotations

import os
from pathlib import Path

LABS = Path(__file__).resolve().parents[1] / "labs"


def execute(nb, *, allow_errors: bool):
    """Run ``nb`` in a fresh python3 kernel, from labs/, with ALICE_FAST=1 and the
    inline matplotlib backend (MPLBACKEND is dropped so the kernel picks its own)."""
    from nbclient import NotebookClient

    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["ALICE_FAST"] = "1"
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(LABS)}},
    )
    client.execute(env=env)
    return nb


def outputs(nb, kind: str) -> list:
    """Every output of type ``kind`` ("stream", "error", ...) in the code cells."""
    return [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == kind
    ]


def stdout(nb) -> str:
    return "".join(o.text for o in outputs(nb, "stream") if o.name == "stdout")
