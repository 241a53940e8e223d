"""The one 95% confidence interval: a mean of independent samples (games, pairs of games, positions)
and its normal-approximation interval, mean +- 1.96 standard errors."""

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
