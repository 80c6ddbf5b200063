"""alice_course: the course machinery around the textbook library ``alice_lab``.

``alice_lab`` holds what *Alice's Adventures in a differentiable wonderland* defines;
this package holds what the companion builds around it, one room each:

- :mod:`alice_course.claims`: the book's claims and errata, one module of checks per
  chapter (``chNN_<topic>.py``), and ``verify`` for the notebooks;
- :mod:`alice_course.widgets`: the interactive views, one module per idea;
- :mod:`alice_course.grading`: the lab checks (``labNN.py``), the judge and the
  sandboxed grader;
- :mod:`alice_course.labs`: student notebooks generated from the instructor sources;
- :mod:`alice_course.experiments`: cached runs the notebooks draw;
- :mod:`alice_course.cli` and :mod:`alice_course.doctor`: the ``alice-lab`` command.

It imports ``alice_lab``; ``alice_lab`` never imports it
(``tests/test_two_packages.py``). Submodules load on first use, so
``import alice_course`` is cheap.
"""

from __future__ import annotations

from alice_lab._compat import lazy_getattr

_SUBMODULES = ("claims", "cli", "doctor", "experiments", "grading", "labs", "widgets")

__all__ = list(_SUBMODULES)

__getattr__ = lazy_getattr(__name__, {name: f".{name}" for name in _SUBMODULES})


def __dir__():
    return sorted(__all__)
