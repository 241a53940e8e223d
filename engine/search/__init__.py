"""Judging positions: the evaluator protocol, 0..3-ply search and cube advice on it, and the
exact one-sided bear-off databases that wrap any evaluator."""
