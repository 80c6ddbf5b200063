"""Chapter 1's empirical claims, checked by training small networks on bundled digits.

Kept apart from ``ch01.py`` because these checks train networks (about a second each
on 2 CPU cores) and need PyTorch and scikit-learn.
"""

from __future__ import annotations

from alice_course.claims import claim


@claim(
    "C1-06",
    section="1",
    lines=87,
    statement=(
        "a network with enough parameters fits randomly shuffled training labels "
        "perfectly while its test accuracy stays at chance: it can memorise"
    ),
)
def memorises_random_labels() -> str:
    from alice_course.experiments import digits_mlp

    run = digits_mlp(n_train=1000, width=512, steps=300, shuffle_labels=True, seed=0)
    train, test = run.train_accuracy, run.test_accuracy
    assert train > 0.95, f"train accuracy {train:.3f} on random labels"
    assert test < 0.2, f"test accuracy {test:.3f} should be near 0.1"
    return f"train acc {train:.3f}, test acc {test:.3f} (chance 0.1)"


@claim(
    "C1-07",
    section="1",
    lines=83,
    statement=(
        "more training data gives a lower test loss (a scaling trend, measured on "
        "digits with 250, 500 and 1000 examples, averaged over 2 seeds)"
    ),
)
def more_data_lowers_test_loss() -> str:
    from alice_course.experiments import digits_mlp

    losses = []
    for n in (250, 500, 1000):
        runs = [digits_mlp(n_train=n, width=256, steps=150, seed=s) for s in (0, 1)]
        losses.append(sum(r.test_loss for r in runs) / len(runs))
    assert losses[0] > losses[1] > losses[2], f"test losses {losses} do not decrease"
    return "test loss " + " > ".join(f"{v:.3f}" for v in losses)
