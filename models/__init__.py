"""Evaluators: encodings, the networks (torch) and their shipped weights, and the baselines
(pubeval, heuristic, random, GNU Backgammon through gnubg-nn); players by name in ``players``."""
