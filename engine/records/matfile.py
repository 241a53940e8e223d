"""Jellyfish "match export" text files (.mat), as GNU Backgammon 1.07 writes and reads them.

``docs/mat-format.md`` describes the format and every choice made here. In brief: a few
``; [Tag "value"]`` lines, `` N point match`` (0 for a money session), then per game
`` Game N``, a line ``name : score   name : score`` and numbered lines with two cells,
the first named player (player 0) on the left. A cell is a roll and its move
(``31: 8/5 6/5``, ``64:`` when nothing could be played), `` Doubles => 2``, `` Takes``,
`` Drops`` or `` Beavers => 4``; ``Wins N points`` in the winner's column ends the game.

Reading checks the syntax and the bookkeeping (rows, turns, cube values, results,
scores) but not whether a move is legal for its position: :mod:`engine.review.replay` does
that. Every fault is a :class:`~engine.records.matchlog.MatchFileError` naming the file, the game
and the line. Writing produces the text gnubg's ``export match mat`` produces, so that
gnubg's ``import mat`` reads it back.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from pathlib import Path

from gammon.engine.cube.met import check_match_length
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_text
from gammon.engine.records.matchlog import Action, GameLog, MatchFileError, MatchLog
from gammon.engine.rules.board import VARIANTS, variant_checkers
from gammon.engine.rules.notation import parse_move

__all__ = ["read_mat", "load_mat", "write_mat", "save_mat"]

RIGHT_COLUMN = 20  # a cell starting at this column or later is the right-hand player's (gnubg: 33 or 34)
LEFT_WIDTH = 27  # gnubg pads a left cell to 27 characters after the row number
NAME_WIDTH = 31  # ... and the left "name : score" to 31
RIGHT_INDENT = 34  # a right-hand Wins on a line of its own
LEFT_INDENT = 6  # a left-hand Wins on a line of its own

GNUBG_TAGS = ("Site", "Event", "Round", "EventDate", "Variation", "Transcriber")  # in the order gnubg writes them
VARIATION_OF = {"standard": "Backgammon", "nackgammon": "NackGammon", "hypergammon": "HyperGammon (3)"}
VARIANT_OF = {name.lower(): variant for variant, name in VARIATION_OF.items()}
SWITCHES = {"on": True, "off": False}

_MATCH_LINE = re.compile(r"\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME_LINE = re.compile(r"\s*Game\s+(\S+)\s*$", re.IGNORECASE)
_SCORE_LINE = re.compile(r"\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$")
_TAG = re.compile(r'\[\s*([A-Za-z][\w ]*?)\s+"(.*)"\s*\]$')
_ROW = re.compile(r"\s*(\d+)\)")
_ROLL = re.compile(r"(\d+):")
_CUBE = re.compile(r"(doubles|beavers|raccoons)\s*=>\s*(\d+)", re.IGNORECASE)
_ANSWER = re.compile(r"(takes|drops)(?![\w/])", re.IGNORECASE)
_WINS = re.compile(r"wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?(?![\w/])", re.IGNORECASE)
# Where the text of a move stops: at the next cell (a roll or a keyword).
_NEXT_CELL = re.compile(r"\s(?=\s*(?:\d+:|(?:doubles|beavers|raccoons|takes|drops|wins)(?![\w/])))", re.IGNORECASE)
_BAR, _OFF = re.compile(r"\b(?:bar|b)\b", re.IGNORECASE), re.compile(r"\b(?:off|o)\b", re.IGNORECASE)
_DATE = re.compile(r"(\d{4})[-./](\d{1,2})[-./](\d{1,2})$")
_MAX_NUMBER = 6  # digits in a score, a cube value or a point count: more is junk, not a match


# ---------------------------------------------------------------- reading


@dataclass
class _Cell:
    """One entry of a move line: who (by its column), what, and on which line."""

    side: int
    kind: str  # roll, double, beaver, take, drop, wins
    line: int
    dice: tuple[int, int] | None = None
    move: str = ""
    value: int = 0


class _Reader:
    """Reads one file; ``fail`` builds the error that names the file, the game and the line."""

    def __init__(self, text: str, file: str):
        self.lines = text.lstrip("\ufeff").splitlines()
        self.file = file
        self.game: int | None = None

    def fail(self, reason: str, line: int | None) -> MatchFileError:
        return MatchFileError(reason, self.file, self.game, line)

    def number(self, digits: str, what: str, line: int) -> int:
        """``digits`` as an int, refusing numbers too long to be a score, cube or count."""
        if len(digits.lstrip("0")) > _MAX_NUMBER:
            raise self.fail(f"{what} {digits[:12]}... is too large", line)
        return int(digits)


def read_mat(text: str, file: str = "") -> MatchLog:
    """The match in .mat ``text``; ``file`` names it in errors (and becomes ``MatchLog.file``)."""
    reader = _Reader(text, file)
    log = MatchLog(file=file)
    start, named = _read_header(reader, log)
    games = _split_games(reader, start)
    if not games:
        raise reader.fail("no 'Game 1' line: the file has no games (truncated?)", None)
    for number, (game_line, body) in enumerate(games, start=1):
        reader.game = number
        log.games.append(_read_game(reader, log, number, game_line, body, last=number == len(games)))
    reader.game = None
    _check_names(reader, log, named)
    _mark_crawford(log)
    return log


def load_mat(path) -> MatchLog:
    """Read the .mat file at ``path`` (UTF-8, or Latin-1 when it is not UTF-8)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise MatchFileError(f"cannot read it: {exc.strerror or exc}", str(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # old Jellyfish and Snowie files are Windows text
    return read_mat(text, str(path))


def _read_header(reader: _Reader, log: MatchLog) -> tuple[int, dict[int, tuple[str, int]]]:
    """Tags and comments up to the "N point match" line; returns the next line's index and the Player tags."""
    comments: list[str] = []
    named: dict[int, tuple[str, int]] = {}
    for index, raw in enumerate(reader.lines):
        line = index + 1
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped[0] in ";#":
            text = stripped[1:]
            text = (text[1:] if text.startswith(" ") else text).rstrip()
            if not _read_tag(reader, log, text, named, line):
                comments.append(text)
            continue
        match = _MATCH_LINE.match(raw)
        if not match:
            raise reader.fail(f"expected the 'N point match' line, found {_shown(stripped)}", line)
        log.length = reader.number(match.group(1), "match length", line)
        try:
            check_match_length(log.length)
        except GammonError as exc:
            raise reader.fail(str(exc), line) from None
        # tag-shaped lines first, as the writer puts them back among the tags
        log.comment = "\n".join(sorted(comments, key=lambda text: not _TAG.match(text)))
        return index + 1, named
    raise reader.fail("no 'N point match' line: the file is empty or cut short", None)


def _read_tag(reader: _Reader, log: MatchLog, text: str, named: dict[int, tuple[str, int]], line: int) -> bool:
    """Take in a ``[Tag "value"]`` comment we have a field for; False for anything else (kept as comment)."""
    match = _TAG.match(text)
    if not match:
        return False
    key, value = " ".join(match.group(1).split()), match.group(2)
    field = {"Site": "place", "Event": "event", "EventDate": "date"}.get(key)
    if field:
        setattr(log, field, value)
    elif key == "Variation":
        if value.lower() not in VARIANT_OF:
            known = ", ".join(VARIATION_OF.values())
            raise reader.fail(f"variation {value!r} is not one we play ({known})", line)
        log.variant = VARIANT_OF[value.lower()]
    elif key in ("Jacoby", "Beaver", "Crawford"):
        if value.lower() not in SWITCHES:
            raise reader.fail(f"[{key}] is \"On\" or \"Off\"; got {value!r}", line)
        setattr(log, {"Jacoby": "jacoby", "Beaver": "beavers", "Crawford": "crawford"}[key], SWITCHES[value.lower()])
    elif re.fullmatch(r"Player \d+", key):
        player = int(key.split()[1])
        if player not in (1, 2):
            raise reader.fail(f"there is no player {player}: a match has players 1 and 2", line)
        named[player - 1] = (value.strip(), line)
    else:
        return False
    return True


def _split_games(reader: _Reader, start: int) -> list[tuple[int, list[tuple[int, str]]]]:
    """The games after the header: (line of "Game N", [(line, text), ...]), checking their numbers."""
    games: list[tuple[int, list[tuple[int, str]]]] = []
    for index in range(start, len(reader.lines)):
        line, raw = index + 1, reader.lines[index]
        header = _GAME_LINE.match(raw)
        if header:
            reader.game = len(games) + 1
            if header.group(1) != str(reader.game):
                raise reader.fail(f"expected 'Game {reader.game}', found {_shown(raw.strip())}", line)
            games.append((line, []))
        elif raw.strip():
            if not games:
                raise reader.fail(f"{_shown(raw.strip())} stands before any 'Game 1' line", line)
            games[-1][1].append((line, raw))
    return games


def _read_game(reader: _Reader, log: MatchLog, number: int, game_line: int, body, last: bool) -> GameLog:
    """One game: its players and score line, then its cells in order, then its result."""
    if not body:
        raise reader.fail("the game has no 'name : score  name : score' line", game_line)
    line, raw = body[0]
    match = _SCORE_LINE.match(raw)
    if not match:
        raise reader.fail(f"expected 'name : score  name : score', found {_shown(raw.strip())}", line)
    names = (match.group(1), match.group(3))
    score = (reader.number(match.group(2), "score", line), reader.number(match.group(4), "score", line))
    _check_score(reader, log, names, score, line)
    game = GameLog(number, score, line=game_line)
    state = _GameState(reader, log, game, names)
    row = 0
    for line, raw in body[1:]:
        row = _read_line(reader, state, raw, line, row)
    state.finish(last)
    return game


def _check_score(reader: _Reader, log: MatchLog, names: tuple[str, str], score: tuple[int, int], line: int) -> None:
    """The names are the first game's, the score is where the games before left it, the match is not over."""
    if not log.games:
        log.players = names
    elif names != log.players:
        raise reader.fail(f"the players are {names[0]!r} and {names[1]!r}, but game 1 has "
                          f"{log.players[0]!r} and {log.players[1]!r}", line)
    if log.games and score != log.final_score:
        before = log.final_score
        raise reader.fail(f"the score is {score[0]}-{score[1]}, but the games before add up to "
                          f"{before[0]}-{before[1]}", line)
    if log.length and max(score) >= log.length:
        raise reader.fail(f"the score {score[0]}-{score[1]} is past the end of a {log.length}-point match", line)


def _read_line(reader: _Reader, state: _GameState, raw: str, line: int, row: int) -> int:
    """The cells of one line, handed to ``state``; returns the row number reached."""
    numbered = _ROW.match(raw)
    position = 0
    if numbered:
        got = reader.number(numbered.group(1), "row", line)
        if got != row + 1:
            raise reader.fail(f"row {got} follows row {row}", line)
        row, position = got, numbered.end()
    cells = list(_cells(reader, raw, position, line))
    if numbered and not cells:
        raise reader.fail(f"row {row} is empty", line)
    for cell in cells:
        if not numbered and cell.kind != "wins":
            raise reader.fail(f"a line without its row number holds only a result; found {cell.kind}", line)
        state.add(cell)
    return row


def _cells(reader: _Reader, raw: str, position: int, line: int):
    """The cells of ``raw`` from ``position`` on, each given to the player whose column it starts in."""
    while True:
        while position < len(raw) and raw[position].isspace():
            position += 1
        if position >= len(raw):
            return
        side = 0 if position < RIGHT_COLUMN else 1
        if roll := _ROLL.match(raw, position):
            cell, position = _roll_cell(reader, raw, roll, side, line)
        elif cube := _CUBE.match(raw, position):
            kind = "double" if cube.group(1).lower() == "doubles" else "beaver"  # a raccoon is a beaver's beaver
            cell = _Cell(side, kind, line, value=reader.number(cube.group(2), "cube value", line))
            position = cube.end()
        elif answer := _ANSWER.match(raw, position):
            cell = _Cell(side, {"takes": "take", "drops": "drop"}[answer.group(1).lower()], line)
            position = answer.end()
        elif wins := _WINS.match(raw, position):
            cell = _Cell(side, "wins", line, value=reader.number(wins.group(1), "points", line))
            position = wins.end()
        else:
            raise reader.fail(f"cannot read {_shown(raw[position:].split()[0])}: expected a roll like '31:', "
                              "'Doubles => 2', 'Takes', 'Drops', 'Beavers => 4' or 'Wins 1 point'", line)
        yield cell


def _roll_cell(reader: _Reader, raw: str, roll: re.Match, side: int, line: int) -> tuple[_Cell, int]:
    """A roll and the move after it (up to the next cell), its syntax checked."""
    digits = roll.group(1)
    if len(digits) != 2 or not all("1" <= d <= "6" for d in digits):
        raise reader.fail(f"unreadable roll {digits}: (a roll is two dice 1..6, like 31:)", line)
    start = roll.end()
    stop = _NEXT_CELL.search(raw, start)
    end = stop.start() if stop else len(raw)
    move = " ".join(raw[start:end].split())
    try:
        parse_move(move)
    except GammonError as exc:
        raise reader.fail(f"the move after {digits}: {exc}", line) from None
    return _Cell(side, "roll", line, (int(digits[0]), int(digits[1])), move), end


class _GameState:
    """The bookkeeping of one game while its cells are read: turns, cube, borne-off checkers, result."""

    def __init__(self, reader: _Reader, log: MatchLog, game: GameLog, names: tuple[str, str]):
        self.reader, self.log, self.game, self.names = reader, log, game, names
        self.cube = 1
        self.offer: _Cell | None = None  # an unanswered double or beaver
        self.dropper: int | None = None  # who dropped: only the other's Wins may follow
        self.last: _Cell | None = None  # the last cell that was an action
        self.off = [0, 0]  # checkers borne off, counted from the moves
        self.checkers = variant_checkers(log.variant)

    def fail(self, reason: str, cell: _Cell) -> MatchFileError:
        return self.reader.fail(reason, cell.line)

    def act(self, cell: _Cell, kind: str, **fields) -> None:
        self.game.actions.append(Action(cell.side, kind, line=cell.line, **fields))

    def add(self, cell: _Cell) -> None:
        """Take in the next cell: players alternate, cell by cell, and nothing follows the result."""
        who = self.names[cell.side]
        if self.game.winner is not None:
            raise self.fail(f"{who}'s {cell.kind} comes after the result", cell)
        if cell.kind == "wins":
            self.result(cell)
            return
        if self.dropper is not None:
            raise self.fail(f"after {self.names[self.dropper]}'s drop only the doubler's 'Wins' may follow", cell)
        if self.last is not None and self.last.side == cell.side:
            raise self.fail(f"{who} acts twice in a row ({self.last.kind}, then {cell.kind})", cell)
        {"roll": self.roll, "double": self.double, "beaver": self.beaver,
         "take": self.take, "drop": self.drop}[cell.kind](cell)
        self.last = cell

    def roll(self, cell: _Cell) -> None:
        """A roll and its move; after a beaver it is also the doubler's (unwritten) take."""
        if self.offer is not None:
            if self.offer.kind != "beaver":
                raise self.fail(f"{self.names[cell.side]} rolls, but {self.names[self.offer.side]}'s double "
                                "is not answered", cell)
            self.cube = self.offer.value
            self.act(cell, "take", value=self.cube)
            self.offer = None
        self.act(cell, "move", dice=cell.dice, move=cell.move)
        self.off[cell.side] += sum(1 for _, end in parse_move(cell.move) if end == 0)

    def double(self, cell: _Cell) -> None:
        if self.offer is not None:
            raise self.fail(f"a double is answered with Takes, Drops or Beavers, not with {cell.kind}", cell)
        if cell.value != 2 * self.cube:
            raise self.fail(f"'Doubles => {cell.value}', but the cube is at {self.cube}: a double turns it to "
                            f"{2 * self.cube}", cell)
        self.act(cell, "double", value=cell.value)
        self.offer = cell

    def beaver(self, cell: _Cell) -> None:
        if self.offer is None:
            raise self.fail(f"'Beavers => {cell.value}' answers no double", cell)
        if cell.value != 2 * self.offer.value:
            raise self.fail(f"'Beavers => {cell.value}', but the cube was offered at {self.offer.value}: a beaver "
                            f"turns it to {2 * self.offer.value}", cell)
        self.log.beavers = self.log.beavers or not self.log.length  # gnubg writes no [Beaver] tag
        self.act(cell, "beaver", value=cell.value)
        self.offer = cell

    def take(self, cell: _Cell) -> None:
        if self.offer is None or self.offer.kind != "double":
            raise self.fail("'Takes' answers no double" if self.offer is None else
                            "a beaver is taken by playing on (gnubg writes no 'Takes' after 'Beavers')", cell)
        self.cube = self.offer.value
        self.act(cell, "take", value=self.cube)
        self.offer = None

    def drop(self, cell: _Cell) -> None:
        if self.offer is None:
            raise self.fail("'Drops' answers no double", cell)
        self.act(cell, "drop")
        self.dropper = cell.side

    def result(self, cell: _Cell) -> None:
        """``Wins``: after a drop the doubler's; after the winner's last checker is off, a natural end; else
        the loser resigned, offering the points over the cube (gnubg writes no resignation of its own)."""
        winner, points = cell.side, cell.value
        name = self.names[winner]
        if self.dropper is not None:
            paid = self.offer.value // 2
            if winner == self.dropper:
                raise self.fail(f"{name} dropped, so {self.names[1 - winner]} wins; the 'Wins' stands in "
                                f"{name}'s column", cell)
            if points != paid:
                raise self.fail(f"a drop of the cube at {self.offer.value} pays {paid}, not {points}", cell)
        elif self.offer is not None:
            raise self.fail(f"{self.names[self.offer.side]}'s {self.offer.kind} is not answered before the result",
                            cell)
        elif points % self.cube or not 1 <= points // self.cube <= 3:
            raise self.fail(f"{name} wins {points} with the cube at {self.cube}: a game is worth 1, 2 or 3 times "
                            "the cube", cell)
        elif self.off[winner] >= self.checkers:
            if self.last is None or self.last.side != winner or self.last.kind != "roll":
                raise self.fail(f"{name} has borne off, yet the last action is not {name}'s move", cell)
        else:
            self.resigned(cell)
        self.game.winner, self.game.points = winner, points

    def resigned(self, cell: _Cell) -> None:
        """The loser's resignation, accepted. A roll with no move in the winner's own column on the same line is
        gnubg's layout of an opening roller who rolled and then resigned: that roll is the loser's."""
        actions = self.game.actions
        if len(actions) == 1 and self.last.kind == "roll" and not self.last.move \
                and self.last.side == cell.side and self.last.line == cell.line:
            actions[0].player = 1 - cell.side
        self.game.actions.append(Action(1 - cell.side, "resign", value=cell.value // self.cube, line=cell.line))
        self.act(cell, "accept")

    def finish(self, last: bool) -> None:
        """Only the file's last game may stop without a result (a match in progress)."""
        if self.game.winner is None and not last:
            raise self.reader.fail("the game has no 'Wins' line, yet another game follows", self.game.line)


def _check_names(reader: _Reader, log: MatchLog, named: dict[int, tuple[str, int]]) -> None:
    """[Player 1] and [Player 2] tags, where given, name the same players as the games."""
    for player, (name, line) in named.items():
        if name != log.players[player]:
            raise reader.fail(f"the header names player {player + 1} {name!r}, but the games name "
                              f"{log.players[player]!r}", line)


def _mark_crawford(log: MatchLog) -> None:
    """The Crawford game: the first game of a match where a player is one point away (if the rule is on)."""
    if not log.length or not log.crawford:
        return
    for game in log.games:
        if max(game.score) == log.length - 1:
            game.crawford = True
            return


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


# ---------------------------------------------------------------- writing


def write_mat(log: MatchLog) -> str:
    """``log`` as gnubg's ``export match mat`` writes it (see docs/mat-format.md for what a .mat cannot hold)."""
    if not log.games:
        raise MatchFileError("a .mat file names the players in its games: a match without a game cannot be "
                             "written", log.file)
    for player, name in enumerate(log.players):
        if not name.strip() or ":" in name or "\n" in name or name != name.strip():
            raise MatchFileError(f"player {player}'s name {name!r} cannot stand in a .mat file (it must be "
                                 "non-empty, without ':', line breaks or spaces at its ends)", log.file)
    for index, game in enumerate(log.games, start=1):
        if game.number != index:
            raise MatchFileError(f"cannot write it: game {game.number} stands at place {index} (a .mat file "
                                 "numbers its games 1, 2, 3, ...)", log.file, game.number)
        if game.cube != 1:
            raise MatchFileError(f"cannot write it: the game starts with the cube at {game.cube} (automatic "
                                 "doubles), which a .mat file cannot show", log.file, game.number)
    parts = [_header_text(log), f" {log.length} point match\n\n"]
    parts.extend(_game_text(log, game) for game in log.games)
    return "".join(parts)


def save_mat(log: MatchLog, path) -> None:
    """Write ``log`` to ``path`` whole or not at all (a temporary file beside it, then a rename)."""
    text = write_mat(log)
    try:
        atomic_text(path, text)
    except OSError as exc:
        raise MatchFileError(f"cannot write it: {exc.strerror or exc}", str(path)) from None


def _header_text(log: MatchLog) -> str:
    """The tags, in gnubg's order, then the comment; a blank line closes the header.

    Tag-shaped comment lines (tags we have no field for, such as Round) go back among the tags. The rule tags,
    which gnubg never writes, appear only where a rule is not the default, and Beaver not when a beaver in
    the games shows it already (the reader infers it).
    """
    if log.variant not in VARIANTS:
        raise MatchFileError(f"variant {log.variant!r} is not one of {', '.join(VARIANTS)}", log.file)
    lines = log.comment.split("\n") if log.comment else []
    tagged = [line for line in lines if _TAG.match(line)]
    free = [line for line in lines if not _TAG.match(line)]
    beavered = any(a.kind == "beaver" for game in log.games for a in game.actions) and not log.length
    fields = {"Site": log.place, "Event": log.event, "EventDate": _dotted_date(log),
              "Variation": "" if log.variant == "standard" else VARIATION_OF[log.variant],
              "Jacoby": "On" if log.jacoby else "", "Beaver": "On" if log.beavers and not beavered else "",
              "Crawford": "" if log.crawford else "Off"}
    header = []
    for key in GNUBG_TAGS + ("Jacoby", "Beaver", "Crawford"):
        value = fields.get(key, "")
        if "\n" in value or "\r" in value:
            raise MatchFileError(f"the {key} {value!r} has a line break, which a .mat header cannot hold", log.file)
        if value:
            header.append(f'[{key} "{value}"]')
        header += [line for line in tagged if _TAG.match(line).group(1) == key]
    header += [line for line in tagged if _TAG.match(line).group(1) not in GNUBG_TAGS]
    text = "".join(f"; {line}\n" for line in header)
    if free:
        text += "\n; " + "\n; ".join(free)
    return text + "\n"


def _dotted_date(log: MatchLog) -> str:
    """The date as gnubg reads it, YYYY.MM.DD (from YYYY.MM.DD or the .sgf's YYYY-MM-DD)."""
    if not log.date:
        return ""
    match = _DATE.match(log.date.strip())
    if not match:
        raise MatchFileError(f"the date {log.date!r} is not YYYY-MM-DD or YYYY.MM.DD, which gnubg needs", log.file)
    year, month, day = (int(x) for x in match.groups())
    return f"{year:04d}.{month:02d}.{day:02d}"


def _game_text(log: MatchLog, game: GameLog) -> str:
    """One game: its number, names and score, the cells two to a row, and the result in the winner's column."""
    names, (left, right) = log.players, game.score
    out = [f" Game {game.number}\n", f" {f'{names[0]} : {left}':<{NAME_WIDTH}}{names[1]} : {right}\n"]
    cells, ending = _written_cells(log, game)
    right_next, row = False, 1  # right_next: the row's left cell is written and its line still open
    for index, (player, text) in enumerate(cells):
        if index == 0 and player == 1:  # player 1 opened: row 1 has no left cell
            out.append(f"{1:3d})" + " " * (LEFT_WIDTH + 2))
            right_next = True
        if right_next:
            out.append(text + "\n")
            row += 1
        else:
            out.append(f"{row:3d}) {text:<{LEFT_WIDTH}} ")
        right_next = not right_next
    if game.winner is None:
        out.append("\n" if right_next else "")
    elif ending == "drop":
        out.append("\n\n" if right_next else "\n")
    else:
        wins = _wins(game.points)
        if game.winner == 0:
            out.append(("\n" if right_next else "") + " " * LEFT_INDENT + wins + "\n\n")
        else:
            out.append((" " if right_next else " " * RIGHT_INDENT) + wins + "\n\n")
    return "".join(out)


def _wins(points: int) -> str:
    return f"Wins {points} point{'' if points == 1 else 's'}"


def _written_cells(log: MatchLog, game: GameLog) -> tuple[list[tuple[int, str]], str]:
    """The cells of ``game`` as (player, text), and how it ends: "drop", "resign" or "" (the last move, or none).

    A take of a beaver is not written (gnubg's import takes it at the doubler's next roll), nor is a rejected
    resignation (gnubg keeps none); the drop cell carries the doubler's Wins, as gnubg lays it out.
    """
    cells: list[tuple[int, str]] = []
    cube, offer, ending, beavered = 1, 0, "", False
    actions = game.actions

    def fault(action: Action, reason: str) -> MatchFileError:
        return MatchFileError(f"cannot write it: {reason}", log.file, game.number, action.line or None)

    skip = set()
    for index, action in enumerate(actions):
        if index in skip:
            continue
        if ending:
            raise fault(action, f"a {action.kind} follows the end of the game ({ending})")
        kind, player = action.kind, action.player
        if kind == "take" and beavered:
            cube, offer, beavered = offer, 0, False
            continue
        if kind == "resign":
            answer = actions[index + 1] if index + 1 < len(actions) else None
            if answer is None or answer.kind not in ("accept", "reject") or answer.player == player:
                raise fault(action, "a resignation must be followed by the opponent's accept or reject")
            skip.add(index + 1)
            if answer.kind == "accept":
                ending = "resign"
                if game.winner != 1 - player:
                    raise fault(action, f"{log.players[player]} resigned, yet the winner is not the opponent")
            continue
        if kind in ("accept", "reject"):
            raise fault(action, f"an {kind} answers no resignation")
        if cells and cells[-1][0] == player:
            raise fault(action, f"{log.players[player]} acts twice in a row, which a .mat file cannot show")
        if offer and not beavered and kind in ("move", "double"):
            raise fault(action, f"a {kind} while the double to {offer} is not answered")
        if kind == "move":
            if beavered:  # the doubler plays on: the beaver is taken
                cube, offer, beavered = offer, 0, False
            text = _roll_text(action, fault)
        elif kind == "double":
            offer = _offer_value(action, 2 * cube, fault)
            text = f" Doubles => {offer}"
        elif kind == "beaver":
            offer, beavered = _offer_value(action, 2 * offer, fault), True
            text = f" Beavers => {offer}"
        elif kind == "take":
            if not offer:
                raise fault(action, "a take answers no double")
            cube, offer, text = offer, 0, " Takes"
        else:  # drop: the doubler's Wins goes with it, on this line or the next (none in a record cut short)
            if not offer or game.winner not in (None, 1 - player):
                raise fault(action, "a drop must answer a double and make the doubler the winner")
            gap = "\n" + " " * LEFT_INDENT if player == 1 else " " * 23
            text, ending = " Drops" + ("" if game.winner is None else gap + _wins(game.points)), "drop"
        cells.append((player, text))
    _check_ending(log, game, cells, ending, actions)
    return cells, ending


def _offer_value(action: Action, value: int, fault) -> int:
    """The cube value a double or beaver offers: twice what it answers; a value the action gives must agree."""
    if not value:
        raise fault(action, "a beaver answers no double")
    if action.value and action.value != value:
        raise fault(action, f"a {action.kind} here turns the cube to {value}, not {action.value}")
    return value


def _roll_text(action: Action, fault) -> str:
    """``31: 8/5 6/5 `` as gnubg writes it: bar as 25, off as 0, a space after each of fewer than four steps."""
    dice = action.dice
    if dice is None or len(dice) != 2 or not all(isinstance(d, numbers.Integral) and 1 <= d <= 6 for d in dice):
        raise fault(action, f"a move needs two dice 1..6; got {dice}")
    move = _OFF.sub("0", _BAR.sub("25", " ".join(action.move.split())))
    try:
        steps = len(parse_move(move))
    except GammonError as exc:
        raise fault(action, f"the move {action.move!r}: {exc}") from None
    return f"{dice[0]}{dice[1]}: {move}" + (" " if move and steps < 4 else "")


def _check_ending(log: MatchLog, game: GameLog, cells, ending: str, actions) -> None:
    """A game with a winner ends with a drop, a resignation, or the winner's own last move; one without, with none."""
    if game.winner is None:
        if ending == "resign":
            raise MatchFileError("cannot write it: a resignation was accepted, but the game has no winner",
                                 log.file, game.number, game.line or None)
        return
    if game.winner not in (0, 1) or game.points < 1:
        raise MatchFileError(f"cannot write it: the result ({game.winner}, {game.points} points) is not a "
                             "player and a positive score", log.file, game.number, game.line or None)
    if not ending and (not cells or cells[-1][0] != game.winner or actions[-1].kind != "move"):
        raise MatchFileError(f"cannot write it: {log.players[game.winner]} wins, but neither their last move, "
                             "a drop nor a resignation ends the game", log.file, game.number, game.line or None)
