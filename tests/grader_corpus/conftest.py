"""The grader's adversarial corpus: submissions, not tests. Nothing here is collected
(nbval would otherwise execute the hostile notebooks, ``os._exit`` and all)."""

collect_ignore_glob = ["*.ipynb", "*.py"]
