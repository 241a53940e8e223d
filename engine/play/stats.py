"""The 95% confidence intervals: of a mean of independent samples (games, pairs of games, positions),
mean +- 1.96 standard errors; and of a share (matches won), Wilson's, which stays inside 0..1."""

from __future__ import annotations

import numpy as np

Z95 = 1.96  # the normal quantile of a two-sided 95% interval


def mean_and_error(values) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (NaN for fewer than two values)."""
    v = np.asarray(values, dtype=np.float64)
    error = float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")
    return float(v.mean()), error


def interval95(mean: float, std_error: float) -> tuple[float, float]:
    """The 95% interval around ``mean``."""
    return (mean - Z95 * std_error, mean + Z95 * std_error)


def mean_ci95(values) -> tuple[float, tuple[float, float]]:
    """The mean of ``values`` and its 95% interval (NaN for fewer than two values)."""
    v = np.asarray(values, dtype=np.float64)
    mean = float(v.mean())
    spread = float(v.std(ddof=1)) if len(v) > 1 else float("nan")
    half_width = Z95 * spread / float(np.sqrt(len(v)))  # in this order: the figures on record
    return mean, (mean - half_width, mean + half_width)


def share_ci95(successes: float, trials: int) -> tuple[float, float]:
    """Wilson's 95% interval of a share of ``trials`` (matches won): inside 0..1 even at 0 or all of them,
    where mean +- 1.96 standard errors would give 100% .. 100% for 4 wins of 4."""
    share, z2 = successes / trials, Z95 * Z95
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half_width = Z95 * np.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return (float(centre - half_width), float(centre + half_width))
