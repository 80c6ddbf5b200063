"""The ``alice-lab`` command.

Subcommands:

- ``alice-lab doctor``: one OK/FAIL line per dependency, backend, device and dataset;
  exit status 1 when anything failed.
- ``alice-lab make-student SOURCES... --out DIR [--force] [--check]``: write the
  student notebook of each lab source into DIR (``--force`` replaces notebooks it
  generated earlier; it never overwrites anything else). With ``--check`` nothing is
  written: the exit status is 1 when a committed student notebook differs from what
  its source generates now.

``main(argv)`` returns the exit status, so tests call it directly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]


def _doctor(args: argparse.Namespace) -> int:
    from alice_lab.doctor import doctor

    return 0 if doctor() else 1


def _make_student(args: argparse.Namespace) -> int:
    from alice_lab.labs import check_student, make_student

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="alice-lab",
        description="The Alice companion: environment check and lab notebooks.",
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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``alice-lab`` with ``argv`` (default: the command line); return the exit
    status."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
