"""The library: the rules and everything built on them, numpy only; it knows nothing of torch,
the command line or training (evaluators are passed in).

Layers, each importing only those above it (tests/test_architecture.py enforces the order):
``errors`` and ``files`` (the base), ``rules`` (boards, variants, dice, move generation,
notation, outcomes), ``cube`` (cube state, match equity, money and match cube arithmetic),
``search`` (evaluators, n-ply search, the bear-off databases), ``play`` (games, players,
duels, luck, rollouts, chouettes), ``records`` (IDs, match files, pictures) and ``review``
(replaying and analysing recorded matches, advice). docs/architecture.md tells the story.
"""
