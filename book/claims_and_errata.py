# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Claims and errata
#
# Every statement of the book that code can check is registered in `alice_course.claims`
# with its place in the book (section, equation, line of the book's text) and a check.
# The chapter notebooks run each check next to the text it belongs to. When the site is
# built, each chapter logs what its checks found while it runs, and this page lists those
# results; opened on its own (in Jupyter or Colab) it runs every check itself.
#
# An **erratum** is a place where the printed book is wrong: the "book prints" column
# says what it prints, the statement says what is right, and the check asserts the
# corrected form. Line numbers refer to the plain-text edition of the book that this
# companion was built from.

# %%
import os

from IPython.display import Markdown, display

from alice_course import claims

found = claims.all_claims()
logged = os.environ.get("ALICE_CLAIMS_DIR")  # set by the site build
if logged:
    res = claims.recorded(logged)
    print(f"results logged by the chapter notebooks as they ran ({len(res)} claims)")
else:
    res = claims.results(found)
    print(f"every check run here ({len(res)} claims)")
missing = sorted({c.id for c in found} - {r.claim.id for r in res})
ok = sum(r.ok for r in res)
errata = sum(r.claim.erratum is not None for r in res)
print(
    f"{len(res)} claims checked, {ok} hold, {len(res) - ok} fail; "
    f"{errata} of them are errata"
)

# %%
display(Markdown(claims.report(res)))

# %%
assert not missing, f"no chapter notebook verified {missing}"
assert ok == len(res), [r.line() for r in res if not r.ok]
