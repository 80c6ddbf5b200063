"""Reports of graded submissions: Gradescope, GitHub Classroom, a class CSV, JUnit XML.

- :func:`gradescope`: the ``results.json`` a Gradescope autograder writes to
  ``/autograder/results/``: total ``score``, one test per check with ``score``,
  ``max_score``, ``status`` and ``output``, hidden checks shown ``after_published``,
  and ``extra_data`` with the grading status and the sandbox level obtained.
- :func:`classroom`: the JSON that GitHub Classroom's ``autograding-grading-reporter``
  decodes from a ``<RUNNER>_RESULTS`` variable (base64, :func:`classroom_base64`):
  ``version``, ``status`` (pass/fail/error), ``max_score`` and tests with ``score``.
- :func:`csv_text`: one row per student (score, status, sandbox level, seconds, the
  points of every check), for a spreadsheet.
- :func:`junit_xml`: one ``<testsuite>`` per student, one ``<testcase>`` per check, for
  CI systems that draw test reports.

:func:`write_submission` writes a submission's files (``results.json``, its GitHub
Classroom JSON and a ``log.txt`` for the instructor only); :func:`write_class` writes
``grades.csv``, ``junit.xml`` and ``classroom.json`` for a class. Both write through an
:class:`~alice_course.grading.outbox.Outbox`, which never follows a link.

>>> _xml_text("a\\x00b")
'a?b'
"""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import xml.etree.ElementTree as ET

from alice_course.grading.grader import Graded
from alice_course.grading.outbox import Outbox, safe_text

__all__ = [
    "classroom",
    "classroom_base64",
    "gradescope",
    "junit_xml",
    "csv_text",
    "write_class",
    "write_submission",
]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def gradescope(g: Graded) -> dict:
    """Gradescope's ``results.json`` for one submission."""
    lvl, label = g.level
    return {
        "score": float(g.score),
        "execution_time": round(g.seconds, 2),
        "output": g.message,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [
            {
                "name": f"Exercise {c.exercise}: {c.name}",
                "number": c.exercise,
                "score": float(c.points),
                "max_score": float(c.max_points),
                "status": "passed" if c.passed else "failed",
                "output": f"{c.status}: {c.message}",
                "visibility": "after_published" if c.hidden else "visible",
                "extra_data": {
                    "check": c.id,
                    "status": c.status,
                    "verified": c.verified,
                },
            }
            for c in g.checks
        ],
        "extra_data": {
            "student": g.student,
            "lab": g.lab,
            "grading_status": g.status,
            "max_score": float(g.max_score),
            "sandbox_level": lvl,
            "sandbox": label,
            "sandbox_layers": g.isolation,
        },
    }


def classroom(g: Graded) -> dict:
    """The JSON GitHub Classroom's grading reporter reads for one submission."""
    if g.status not in ("ok",) and not g.checks:
        status = "error"
    elif g.checks and all(c.passed for c in g.checks):
        status = "pass"
    else:
        status = "fail"
    return {
        "version": 1,
        "status": status,
        "max_score": g.max_score,
        "tests": [
            {
                "name": f"Exercise {c.exercise}: {c.name}",
                "status": "pass" if c.passed else "fail",
                "message": f"{c.status}: {c.message}",
                "score": c.points,
                "max_score": c.max_points,
                "line_no": 0,
                "execution_time": f"{c.seconds:.2f}s",
            }
            for c in g.checks
        ],
    }


def classroom_base64(g: Graded) -> str:
    """:func:`classroom` as the reporter takes it: compact JSON, base64."""
    text = json.dumps(classroom(g), separators=(",", ":"))
    return base64.b64encode(text.encode()).decode("ascii")


def _columns(results: list[Graded]) -> list[str]:
    ids = []
    for g in results:
        ids += [c.id for c in g.checks if c.id not in ids]
    return ids


def csv_text(results: list[Graded]) -> str:
    """``grades.csv``: one row per student; a column per check holds its points."""
    ids = _columns(results)
    head = ["student", "submission", "lab", "score", "max_score", "status"]
    head += ["sandbox_level", "seconds", *ids]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(head)
    for g in results:
        points = {c.id: c.points for c in g.checks}
        writer.writerow(
            [g.student, g.submission, g.lab or "", g.score, g.max_score, g.status]
            + [g.level[0], f"{g.seconds:.2f}"]
            + [points.get(i, "") for i in ids]
        )
    return buffer.getvalue()


def _xml_text(text: object) -> str:
    return _NOT_XML.sub("?", safe_text(text))


def junit_xml(results: list[Graded]) -> str:
    """JUnit XML: a ``<testsuite>`` per student, a ``<testcase>`` per check; checks
    that failed are ``<failure>``, those that could not run are ``<error>``."""
    errors_kinds = ("error", "timeout", "memory", "crashed", "disk", "not run")
    root = ET.Element("testsuites", name="alice-lab grading")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for g in results:
        suite = ET.SubElement(root, "testsuite", name=_xml_text(g.student))
        props = ET.SubElement(suite, "properties")
        for key, value in (
            ("score", g.score),
            ("max_score", g.max_score),
            ("status", g.status),
            ("lab", g.lab or ""),
            ("sandbox_level", g.level[0]),
        ):
            ET.SubElement(props, "property", name=key, value=_xml_text(value))
        failures = errors = 0
        for c in g.checks:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_xml_text(f"{g.lab}.{g.student}"),
                name=_xml_text(f"{c.id} {c.name}"),
                time=f"{c.seconds:.3f}",
            )
            if c.passed:
                continue
            tag = "error" if c.status in errors_kinds else "failure"
            node = ET.SubElement(case, tag, message=_xml_text(c.message[:500]))
            node.set("type", c.status)
            node.text = _xml_text(c.message)
            failures += tag == "failure"
            errors += tag == "error"
        if not g.checks:
            case = ET.SubElement(
                suite, "testcase", classname=g.lab or "", name="grading"
            )
            node = ET.SubElement(case, "error", message=_xml_text(g.message[:500]))
            node.set("type", g.status)
            errors += 1
        n = max(len(g.checks), 1)
        suite.set("tests", str(n))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("time", f"{g.seconds:.3f}")
        totals["tests"] += n
        totals["failures"] += failures
        totals["errors"] += errors
    for key, value in totals.items():
        root.set(key, str(value))
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def write_submission(g: Graded, box: Outbox) -> None:
    """``results.json`` (Gradescope), ``classroom.json`` and ``log.txt`` (instructor
    only: what the worker printed, how it ended) into the output folder ``box``."""
    box.write("results.json", json.dumps(gradescope(g), indent=2) + "\n")
    box.write("classroom.json", json.dumps(classroom(g), indent=2) + "\n")
    box.write(
        "log.txt", g.log + "\n\nsandbox: " + json.dumps(g.isolation, indent=1) + "\n"
    )


def write_class(results: list[Graded], box: Outbox) -> None:
    """``grades.csv``, ``junit.xml`` and ``classroom.json`` (student -> JSON)."""
    box.write("grades.csv", csv_text(results))
    box.write("junit.xml", junit_xml(results) + "\n")
    box.write(
        "classroom.json",
        json.dumps({g.student: classroom(g) for g in results}, indent=2) + "\n",
    )
