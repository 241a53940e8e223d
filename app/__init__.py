"""The user-facing programs built on the library: the ``gammon`` command line, terminal play,
and the GNU Backgammon external player. ``engine`` stays a library (no argparse, no sockets)."""
