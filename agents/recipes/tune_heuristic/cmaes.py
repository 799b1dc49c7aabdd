"""CMA-ES: a derivative-free optimiser for a few hundred parameters and a noisy objective, as ask and tell.

The covariance matrix adaptation evolution strategy samples a population around a mean, ranks it by the
objective, moves the mean toward the best half and reshapes the sampling distribution (its covariance and its
overall step size) along the directions that paid. Only the ranks of the scores are used, so an objective that
is a win rate over a few thousand games, measured on the same deals for every candidate of a generation, is
enough. The constants are the usual defaults of the method (Hansen's tutorial, "The CMA Evolution Strategy").
"""

from __future__ import annotations

import numpy as np


class CMAES:
    """Maximises an objective over ``R^n`` from ``mean`` with step size ``sigma``: :meth:`ask`, then :meth:`tell`.

    Args:
        mean: the starting point.
        sigma: the starting step size (the standard deviation of the first population around ``mean``).
        population: candidates per generation (at least 4).
        seed: the sampling generator's seed.
    """

    def __init__(self, mean: np.ndarray, sigma: float, population: int, seed: int = 0) -> None:
        n = int(np.asarray(mean).size)
        if n < 1 or population < 4 or not sigma > 0:
            raise ValueError("CMA-ES needs at least one parameter, a population of 4 or more and a positive sigma")
        self.mean = np.asarray(mean, dtype=np.float64).ravel().copy()
        self.sigma = float(sigma)
        self.population = int(population)
        self.generation = 0
        self._rng = np.random.default_rng(seed)
        mu = population // 2
        w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
        self._weights = w / w.sum()
        self._mueff = 1.0 / float((self._weights**2).sum())
        me = self._mueff
        self._cs = (me + 2) / (n + me + 5)
        self._ds = 1 + 2 * max(0.0, np.sqrt((me - 1) / (n + 1)) - 1) + self._cs
        self._cc = (4 + me / n) / (n + 4 + 2 * me / n)
        self._c1 = 2 / ((n + 1.3) ** 2 + me)
        self._cmu = min(1 - self._c1, 2 * (me - 2 + 1 / me) / ((n + 2) ** 2 + me))
        self._chi = np.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n))
        self._cov = np.eye(n)
        self._axes = np.eye(n)
        self._scales = np.ones(n)
        self._path_sigma = np.zeros(n)
        self._path_cov = np.zeros(n)
        self._steps: np.ndarray | None = None

    def ask(self) -> np.ndarray:
        """``(population, n)``: this generation's candidates."""
        z = self._rng.standard_normal((self.population, self.mean.size))
        self._steps = (z * self._scales) @ self._axes.T
        return self.mean + self.sigma * self._steps

    def tell(self, scores: np.ndarray) -> None:
        """Update from the scores of :meth:`ask`'s candidates, in its order (higher is better)."""
        if self._steps is None:
            raise RuntimeError("tell() needs the candidates of a preceding ask()")
        scores = np.asarray(scores, dtype=np.float64)
        if scores.shape != (self.population,) or not np.isfinite(scores).all():
            raise ValueError(f"scores must be {self.population} finite numbers")
        best = self._steps[np.argsort(-scores, kind="stable")[: self._weights.size]]
        step = self._weights @ best
        self.mean = self.mean + self.sigma * step
        inverse_root = self._axes @ np.diag(1 / self._scales) @ self._axes.T
        self._path_sigma = (1 - self._cs) * self._path_sigma + np.sqrt(self._cs * (2 - self._cs) * self._mueff) * (
            inverse_root @ step
        )
        self.generation += 1
        norm = float(np.linalg.norm(self._path_sigma))
        threshold = (1.4 + 2 / (self.mean.size + 1)) * self._chi
        stalled = norm / np.sqrt(1 - (1 - self._cs) ** (2 * self.generation)) >= threshold
        self._path_cov = (1 - self._cc) * self._path_cov + (not stalled) * np.sqrt(
            self._cc * (2 - self._cc) * self._mueff
        ) * step
        rank_one = np.outer(self._path_cov, self._path_cov) + stalled * self._cc * (2 - self._cc) * self._cov
        rank_mu = (best.T * self._weights) @ best
        self._cov = (1 - self._c1 - self._cmu) * self._cov + self._c1 * rank_one + self._cmu * rank_mu
        self._cov = np.triu(self._cov) + np.triu(self._cov, 1).T
        self.sigma *= float(np.exp((self._cs / self._ds) * (norm / self._chi - 1)))
        eigenvalues, self._axes = np.linalg.eigh(self._cov)
        self._scales = np.sqrt(np.maximum(eigenvalues, 1e-20))
        self._steps = None
