r"""Probability: Appendix A, and the likelihoods and posteriors of §3.2-3.3.

Everything that takes arrays is written once against the Python array API (NumPy,
PyTorch, JAX); samplers draw on the host with a seeded NumPy generator. Four rules
keep the numbers honest:

- **Logs, never products.** A likelihood is a sum of log-probabilities
  (:func:`log_likelihood`): the product of 1100 probabilities of 0.5 is already 0.0
  in float64.
- **0 log 0 = 0.** Categorical and Bernoulli log-probabilities use the convention of
  :func:`scipy.special.xlogy`, so a zero probability on a class that was *not*
  observed costs nothing, while one on the observed class gives :math:`-\infty`.
- **Normalise with logsumexp.** Grid posteriors are normalised in log space with
  :func:`alice_lab.functional.logsumexp`, so even likelihoods far below the smallest
  float survive.
- **A floor under variances.** :func:`gaussian_pseudo_loss` clamps the predicted
  variance :math:`f_2^2` from below, otherwise :math:`f_2 \to 0` sends the loss to
  :math:`-\infty`.

Book: Appendix A, lines 6851-7009; §3.2.2 (lines 1244-1260), §3.2.3 (lines 1262-1282)
and §3.3 (lines 1284-1312).

The package has one module per idea: :mod:`alice_lab.probability.laws` (A.1),
:mod:`alice_lab.probability.distributions` (A.2-A.3 and §3.2.2),
:mod:`alice_lab.probability.moments` (A.4), :mod:`alice_lab.probability.divergence`
(A.5), :mod:`alice_lab.probability.likelihood` (A.6 and §3.2.3) and
:mod:`alice_lab.probability.bayesian` (§3.3).
"""

from alice_lab.probability.bayesian import (
    beta_bernoulli_posterior,
    grid_argmax,
    grid_posterior,
    map_beta_bernoulli,
    mc_predictive,
    normal_mean_posterior,
)
from alice_lab.probability.distributions import (
    bernoulli_logpmf,
    categorical_logpmf,
    categorical_nll,
    categorical_pmf,
    gaussian_nll as gaussian_nll,  # gaussian_pseudo_loss's old name: warns, one release
    gaussian_pseudo_loss,
    mvn_logpdf,
    mvn_sample,
    normal_logpdf,
    normal_pdf,
    numeric_cdf,
)
from alice_lab.probability.divergence import (
    entropy,
    kl_discrete,
    kl_mc,
    kl_normal,
)
from alice_lab.probability.laws import (
    LOTTERY_COUNTS,
    bayes,
    conditional,
    is_independent,
    joint_from_counts,
    marginal,
)
from alice_lab.probability.likelihood import (
    fit_gaussian_gd,
    gaussian_loglik,
    log_likelihood,
    mle_bernoulli,
    mle_gaussian,
)
from alice_lab.probability.moments import (
    MCEstimate,
    expectation,
    mc_expectation,
    moment,
    running_mean,
)

__all__ = [
    "LOTTERY_COUNTS",
    "MCEstimate",
    "bayes",
    "bernoulli_logpmf",
    "beta_bernoulli_posterior",
    "categorical_logpmf",
    "categorical_nll",
    "categorical_pmf",
    "conditional",
    "entropy",
    "expectation",
    "fit_gaussian_gd",
    "gaussian_loglik",
    "gaussian_pseudo_loss",
    "grid_argmax",
    "grid_posterior",
    "is_independent",
    "joint_from_counts",
    "kl_discrete",
    "kl_mc",
    "kl_normal",
    "log_likelihood",
    "map_beta_bernoulli",
    "marginal",
    "mc_expectation",
    "mc_predictive",
    "mle_bernoulli",
    "mle_gaussian",
    "moment",
    "mvn_logpdf",
    "mvn_sample",
    "normal_logpdf",
    "normal_mean_posterior",
    "normal_pdf",
    "numeric_cdf",
    "running_mean",
]
