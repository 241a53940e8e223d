"""The one base class for faults in what a user gave us.

Every error that means "your input is wrong" (a position, a move, a file, an option)
is a :class:`GammonError`: the command line prints its message as one line and exits
with code 2. Anything else is a bug in gammon and keeps its traceback. Subclasses say
what kind of fault it is (``BoardError``, ``FormatError``, ``MoveError``, ...); a
GammonError is also a ``ValueError``, so callers that catch ValueError still work.
"""


class GammonError(ValueError):
    """A fault in the user's input; the message names it in one line."""


class BoardError(GammonError):
    """A board that cannot be a backgammon position (says what is wrong)."""
