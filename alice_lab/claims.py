"""Deprecated: ``alice_lab.claims`` moved to ``alice_course.claims``.

The course machinery left the textbook library (issue #14); this alias keeps notebooks
that were published with the old import working for one release, with a warning.
"""

import sys
import warnings

from alice_course import claims as _moved

warnings.warn(
    "alice_lab.claims moved to alice_course.claims; import it from there "
    "(this alias goes away in the next release)",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
