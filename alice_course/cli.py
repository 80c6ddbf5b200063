"""The ``alice-lab`` command.

Subcommands:

- ``alice-lab doctor``: one OK/FAIL line per dependency, backend, device and dataset;
  exit status 1 when anything failed.
- ``alice-lab make-student SOURCES... --out DIR [--force] [--check]``: write the
  student notebook of each lab source into DIR (``--force`` replaces notebooks it
  generated earlier; it never overwrites anything else). With ``--check`` nothing is
  written: the exit status is 1 when a committed student notebook differs from what
  its source generates now.
- ``alice-lab grade SUBMISSION [--lab LAB] [--hidden DIR] [--out DIR] [--timeout S]``:
  grade one ``.ipynb`` or ``.py`` submission in a sandboxed worker and write
  ``results.json`` (Gradescope), ``classroom.json`` (GitHub Classroom), ``junit.xml``
  and ``log.txt`` into DIR; ``--github-output`` also appends the base64 result that
  GitHub Classroom's reporter reads to ``$GITHUB_OUTPUT``.
- ``alice-lab grade-batch DIR [--lab LAB] [--hidden DIR] [--out DIR] [--jobs N]``:
  grade every submission in DIR (a file or a folder per student), writing each
  student's files to ``OUT/<student>/`` and ``grades.csv``, ``junit.xml`` and
  ``classroom.json`` for the class.

Grading exits 0 once the results are written, whatever the scores; 1 when the grader
cannot start (a missing ``--hidden`` directory, an unknown ``--lab``).

``main(argv)`` returns the exit status, so tests call it directly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]


def _doctor(args: argparse.Namespace) -> int:
    from alice_course.doctor import doctor

    return 0 if doctor() else 1


def _make_student(args: argparse.Namespace) -> int:
    from alice_course.labs import check_student, make_student

    status = 0
    for source in args.sources:
        try:
            if args.check:
                if check_student(source, args.out):
                    print(f"up to date: {args.out / (source.stem + '.ipynb')}")
                else:
                    status = 1
                    print(
                        f"OUT OF DATE: {args.out / (source.stem + '.ipynb')} differs "
                        f"from what {source} generates; run `alice-lab make-student "
                        f"{source} --out {args.out} --force`",
                        file=sys.stderr,
                    )
            else:
                print(f"wrote {make_student(source, args.out, force=args.force)}")
        except (OSError, ValueError) as err:  # FileExistsError is an OSError
            print(f"error: {err}", file=sys.stderr)
            status = 1
    return status


def _limits(args: argparse.Namespace):
    from alice_course.grading.sandbox import Layers, Limits

    limits = Limits(
        timeout=args.timeout,
        check_timeout=min(args.check_timeout, args.timeout),
        load_timeout=min(60.0, args.timeout),
        memory_mb=args.memory,
    )
    basic = args.basic_isolation
    return limits, Layers(not basic, not basic, not basic)


def _known_lab(lab: str | None) -> str | None:
    """An error message when ``--lab`` names no registered checks."""
    from alice_course.grading.grader import lab_checks

    if lab is None or lab_checks(lab):
        return None
    from alice_course import grading

    known = sorted({i.split(".")[0] for i in grading.CHECKS})
    return f"no checks are registered for lab {lab!r}; known labs: {', '.join(known)}"


def _print_graded(g) -> None:
    lvl, label = g.level
    print(f"{g.student}: {g.lab} — {g.submission}")
    for c in g.checks:
        mark = "✓" if c.passed else "✗"
        print(
            f"  {mark} Exercise {c.exercise} ({c.points}/{c.max_points}): {c.message}"
        )
    for note in g.notes:
        print(f"  note: {note}")
    print(
        f"  score {g.score}/{g.max_score}; status {g.status}; "
        f"sandbox level {lvl} ({label}); {g.seconds:.1f} s"
    )


def _warn_isolation(layers) -> None:
    """Say, before grading, what this machine's sandbox cannot prevent."""
    from alice_course.grading.sandbox import preflight

    warnings = preflight(layers)
    if warnings:
        print("warning: the sandbox is not at its full level here:", file=sys.stderr)
        for w in warnings:
            print(f"  - {w}", file=sys.stderr)
        print(
            "  Run the grader as root on Linux for the full level (see the "
            "instructors' page, 'Isolation levels').",
            file=sys.stderr,
        )


def _grade(args: argparse.Namespace) -> int:
    import os

    from alice_course.grading import reports
    from alice_course.grading.grader import hidden_checks, safe_grade
    from alice_course.grading.outbox import open_outbox

    if problem := _known_lab(args.lab):
        print(f"error: {problem}", file=sys.stderr)
        return 1
    if not os.path.lexists(args.submission):  # the instructor's mistake, not a 0/N
        print(f"error: no submission at {args.submission}", file=sys.stderr)
        return 1
    if args.github_output and not os.environ.get("GITHUB_OUTPUT"):
        print("error: --github-output needs $GITHUB_OUTPUT", file=sys.stderr)
        return 1
    limits, layers = _limits(args)
    _warn_isolation(layers)
    try:
        with (
            hidden_checks(args.hidden) as hidden,
            open_outbox(args.out, overwrite=args.overwrite) as box,
        ):
            # the classmates' files beside the submission too
            beside = Path(args.submission).absolute().parent
            private = tuple(p for p in (box.path, args.hidden, beside) if p)
            g = safe_grade(
                args.submission,
                lab=args.lab,
                limits=limits,
                layers=layers,
                hidden=hidden,
                private=private,
            )
            reports.write_submission(g, box)
            box.write("junit.xml", reports.junit_xml([g]) + "\n")
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    _print_graded(g)
    print(f"wrote {args.out / 'results.json'} (and classroom.json, junit.xml, log.txt)")
    if args.github_output:
        with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as fh:
            fh.write(f"result={reports.classroom_base64(g)}\n")
    return 0


def _grade_batch(args: argparse.Namespace) -> int:
    import time

    from alice_course.grading.grader import grade_batch, hidden_checks

    if problem := _known_lab(args.lab):
        print(f"error: {problem}", file=sys.stderr)
        return 1
    if not args.directory.is_dir():
        print(
            f"error: no directory of submissions at {args.directory}", file=sys.stderr
        )
        return 1
    limits, layers = _limits(args)
    _warn_isolation(layers)
    t0 = time.monotonic()

    def progress(g) -> None:
        lvl, _ = g.level
        print(
            f"{g.student:<24} {g.lab or '?':<6} {g.score:>3}/{g.max_score:<3} "
            f"{g.status:<12} level {lvl}  {g.seconds:5.1f} s",
            flush=True,
        )

    try:
        with hidden_checks(args.hidden) as hidden:
            results = grade_batch(
                args.directory,
                out=args.out,
                lab=args.lab,
                limits=limits,
                layers=layers,
                hidden=hidden,
                jobs=args.jobs,
                progress=progress,
                overwrite=args.overwrite,
            )
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(
        f"graded {len(results)} submissions in {time.monotonic() - t0:.1f} s; wrote "
        f"{args.out / 'grades.csv'}, junit.xml, classroom.json and one folder per "
        "student"
    )
    return 0


def _grading_options(p: argparse.ArgumentParser, out: str) -> None:
    p.add_argument("--lab", help="the lab to grade, e.g. lab02 (default: inferred)")
    p.add_argument(
        "--hidden",
        type=Path,
        metavar="DIR",
        help="a directory of instructor-only checks (*.py files that register checks)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path(out),
        metavar="DIR",
        help=f"output folder, created by the grader (default: {out})",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the reports in an output folder that is not empty",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="wall-clock limit per submission in seconds (default: 300)",
    )
    p.add_argument(
        "--check-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="limit per check in seconds (default: 30)",
    )
    p.add_argument(
        "--memory",
        type=int,
        default=2048,
        metavar="MB",
        help="memory limit per submission in MB (default: 2048)",
    )
    p.add_argument(
        "--basic-isolation",
        action="store_true",
        help="skip namespaces, cgroups and the drop to nobody (a subprocess only)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="alice-lab",
        description="The Alice companion: environment check, lab notebooks, grading.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    doctor = sub.add_parser("doctor", help="check the environment (OK/FAIL per item)")
    doctor.set_defaults(func=_doctor)

    student = sub.add_parser(
        "make-student", help="write student notebooks from instructor lab sources"
    )
    student.add_argument(
        "sources",
        nargs="+",
        type=Path,
        metavar="SOURCE",
        help="instructor sources, e.g. labs/lab02_gradient_descent.py",
    )
    student.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR",
        help="directory for the student notebooks",
    )
    student.add_argument(
        "--force",
        action="store_true",
        help="replace student notebooks generated earlier",
    )
    student.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a student notebook is out of date",
    )
    student.set_defaults(func=_make_student)

    grade = sub.add_parser(
        "grade", help="grade one submission (.ipynb or .py) in a sandbox"
    )
    grade.add_argument("submission", type=Path, metavar="SUBMISSION")
    _grading_options(grade, "grading")
    grade.add_argument(
        "--github-output",
        action="store_true",
        help="append result=<base64> for GitHub Classroom's reporter to $GITHUB_OUTPUT",
    )
    grade.set_defaults(func=_grade)

    batch = sub.add_parser(
        "grade-batch", help="grade a folder of submissions, one per student"
    )
    batch.add_argument("directory", type=Path, metavar="DIR")
    _grading_options(batch, "grading")
    batch.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="submissions graded at the same time (default: 1)",
    )
    batch.set_defaults(func=_grade_batch)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``alice-lab`` with ``argv`` (default: the command line); return the exit
    status."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
