"""gammon: a backgammon engine, its networks and their training, and the programs around them.

One import name, its parts in the repository's top folders (pyproject.toml maps them):
``gammon.engine`` (engine/: the rules and everything built on them, numpy only, in layers),
``gammon.models`` (models/: encodings, networks, shipped weights), ``gammon.training``
(training/), ``gammon.app`` (app/: the ``gammon`` command, terminal, web board, gnubg's
external player) and ``gammon.benchmarks`` (benchmarks/). docs/architecture.md draws the layers.
"""

import os

# numpy's OpenBLAS starts a thread per core, and its idle threads spin: beside pytest workers, pool
# workers or a labelling run they fight for the cores, and the nets' matrices (at most 512 wide) gain
# little from them. One thread unless the user says otherwise; numpy reads this when it is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
