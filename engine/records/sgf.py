"""GNU Backgammon's .sgf match files (SGF FF[4], GM[6]) read into and written from a :class:`MatchLog`.

``docs/sgf-format.md`` describes the format and every choice made here. In brief: one
game tree per game; W is player 0 (the first named, gnubg's player 0) and B player 1; a
move node holds the two dice and up to four (from, to) letter pairs, where ``a``..``x``
are the points counted from W's side (W's 1-point is ``a``, B's 1-point is ``x``), ``y``
the bar and ``z`` off; ``double``, ``take`` and ``drop`` are cube actions, and a double
answering a double is a beaver. gnubg writes an accepted resignation only as an ``R``
after the result (``RE[W+2R]``); a declined one we keep in a private ``RD`` node that
gnubg ignores.

Reading replays every move on the board (from :func:`~engine.rules.board.starting_board`, seen
from the side to move) and turns it into our notation, so a move that is illegal or
does not fit its dice is an error naming the file, the game and the line.
"""

from __future__ import annotations

import bisect
import codecs
import re
from pathlib import Path

import numpy as np

from gammon.engine.cube.met import check_match_length
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_text
from gammon.engine.records.matchlog import RESIGN_NAMES, Action, GameLog, MatchFileError, MatchLog
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.notation import LegalPlay, find_play, format_move, legal_plays

COLOURS = "WB"  # the SGF colour of player 0, player 1
RULE_OF_VARIANT = {"standard": "", "nackgammon": "Nackgammon", "hypergammon": "Hypergammon3"}
RESIGN_VALUES = {name: value for value, name in RESIGN_NAMES.items()}
SETUP = {"AE", "AB", "AW", "CP", "CV"}  # a position or cube set by hand in mid-game
# Any other property (gnubg's analysis A, DA, MR, its statistics GS, luck LU, marks BM...) is skipped.

_IDENT = re.compile(r"[A-Za-z]+")
_VALUE = re.compile(r"\[((?:[^\\\]]|\\.)*)\]", re.DOTALL)
_ESCAPE = re.compile(r"\\(\r\n|\n\r|.)", re.DOTALL)
_MOVE = re.compile(r"([1-6])([1-6])([a-z]*)")
_RESULT = re.compile(r"([WB])\+(\d{1,6})(R?)")
_CHARSET = re.compile(rb"CA\[([^\]]*)\]")


# ---------------------------------------------------------------- SGF syntax


class _Node:
    """One SGF node: the line of its ';' and its properties (name -> values)."""

    def __init__(self, line: int, props: dict[str, list[str]]):
        self.line, self.props = line, props

    def value(self, name: str) -> str | None:
        """The first value of property ``name``, None when the node lacks it."""
        values = self.props.get(name)
        return values[0] if values else None


MAX_NESTING = 100  # variations inside variations; gnubg writes none


class _Syntax:
    """SGF text as its game trees, each read as its main line of nodes.

    gnubg writes one flat sequence per game; of any variations the first is followed, as
    gnubg does when it loads a file.
    """

    def __init__(self, text: str, file: str):
        self.text, self.file, self.pos, self.game = text, file, 0, 0
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def fault(self, reason: str, pos: int) -> MatchFileError:
        return MatchFileError(reason, self.file, self.game or None, self.line(pos))

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        """The next character after white space ('' at the end of the text)."""
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def collection(self) -> list[tuple[int, list[_Node]]]:
        """Every game tree in the text: (line of its '(', its main line of nodes)."""
        trees = []
        while (char := self.peek()) != "":
            if char != "(":
                raise self.fault(f"expected '(' to open a game, found {char!r}", self.pos)
            self.game += 1
            trees.append((self.line(self.pos), self.tree()))
        return trees

    def tree(self, depth: int = 0) -> list[_Node]:
        """The tree opening at the current '(': its sequence, then its first variation."""
        start = self.pos
        if depth > MAX_NESTING:  # read by recursion: refused before Python's own limit
            raise self.fault(f"variations nested more than {MAX_NESTING} deep", start)
        self.pos += 1
        if self.peek() != ";":
            raise self.fault("a game tree starts with a node (';')", self.pos)
        nodes = []
        while self.peek() == ";":
            nodes.append(self.node())
        first = True
        while self.peek() == "(":
            variation = self.tree(depth + 1)
            if first:
                nodes.extend(variation)
                first = False
        char = self.peek()
        if char == "":
            raise self.fault("the text ends inside this game tree: a ')' is missing", start)
        if char != ")":
            raise self.fault(f"unexpected {char!r}: expected a property, ';', '(' or ')'", self.pos)
        self.pos += 1
        return nodes

    def node(self) -> _Node:
        """The node at the current ';' and its properties."""
        line = self.line(self.pos)
        self.pos += 1
        props: dict[str, list[str]] = {}
        while self.peek() and (m := _IDENT.match(self.text, self.pos)):
            name, start = m.group(), m.start()
            if not name.isupper():
                raise self.fault(f"property names are capital letters; got {name!r}", start)
            self.pos = m.end()
            values = []
            while self.peek() == "[":
                values.append(self.value())
            if not values:
                raise self.fault(f"property {name} has no value ('[...]')", start)
            if name in props:
                raise self.fault(f"property {name} appears twice in one node", start)
            props[name] = values
        return _Node(line, props)

    def value(self) -> str:
        """The property value at the current '[', its escapes resolved (a backslash before a line break
        joins the lines; before any other character it keeps that character)."""
        m = _VALUE.match(self.text, self.pos)
        if not m:
            raise self.fault("a property value opened here is never closed with ']'", self.pos)
        self.pos = m.end()
        return _ESCAPE.sub(lambda e: "" if e.group(1) in ("\n", "\r\n", "\n\r") else e.group(1), m.group(1))


def _escape(text: str) -> str:
    """``text`` as an SGF property value: backslash and ']' escaped."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


# ---------------------------------------------------------------- points and moves


def _point(letter: str, player: int) -> int:
    """Our point (mover's numbering: 1..24, 25 bar, 0 off) of a move letter written for ``player``."""
    if letter == "y":
        return 25
    if letter == "z":
        return 0
    index = ord(letter) - ord("a")  # 0..23 counted from W's side
    return index + 1 if player == 0 else 24 - index


def _letter(point: int, player: int) -> str:
    """The move letter of our ``point`` for ``player``: the inverse of :func:`_point`."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") + 1 - point)


def _read_move(text: str, player: int) -> tuple[tuple[int, int], np.ndarray]:
    """The dice and (from, to) steps of a move value like ``52mhxv``; GammonError when it is malformed."""
    m = _MOVE.fullmatch(text)
    if not m or len(m.group(3)) % 2 or len(m.group(3)) > 8:
        raise GammonError(f"cannot read move {COLOURS[player]}[{text}]: expected two dice 1..6 and up to four "
                          "letter pairs (a..x points, y bar, z off)")
    letters = m.group(3)
    steps = []
    for i in range(0, len(letters), 2):
        source, dest = letters[i], letters[i + 1]
        if source == "z" or dest == "y":
            raise GammonError(f"cannot read step {source}{dest} of {COLOURS[player]}[{text}]: a checker moves from "
                              "a point (a..x) or the bar (y) to a point or off (z)")
        steps.append((_point(source, player), _point(dest, player)))
    return (int(m.group(1)), int(m.group(2))), np.array(steps, dtype=np.int64).reshape(-1, 2)


def _write_move(dice: tuple[int, int], play: LegalPlay, player: int) -> str:
    """The move value of ``play`` with ``dice`` for ``player``: dice, then a letter pair per step."""
    steps = [(int(s), int(t)) for s, t in np.asarray(play.steps).reshape(-1, 2) if s > 0]
    return f"{dice[0]}{dice[1]}" + "".join(_letter(s, player) + _letter(t, player) for s, t in steps)


# ---------------------------------------------------------------- one game's state


class _Game:
    """The position, turn and pending double of one game while its record is read or written.

    The board is seen from ``side``, the player who moved last (or moves first). Faults
    raise GammonError; the callers add the file, game and line.
    """

    def __init__(self, variant: str, cube: int, names: tuple[str, str]):
        self.board = starting_board(variant)
        self.side: int | None = None
        self.last: int | None = None  # the player who moved last
        self.cube = cube
        self.offer: tuple[int, int] | None = None  # (who doubled or beavered last, the value offered)
        self.beavered = False  # the pending offer is a beaver: the original doubler answers it
        self.winner: int | None = None
        self.names = names

    def label(self, player: int) -> str:
        return f"{self.names[player]} ({COLOURS[player]})"

    def is_open(self, what: str) -> None:
        """Nothing happens in a game once it is won: ``what`` may not come now if it is."""
        if self.winner is not None:
            raise GammonError(f"{what} after the game ended")

    def view(self, player: int) -> np.ndarray:
        """The board seen by ``player`` (the position before its move)."""
        if self.side is not None and self.side != player:
            self.board = flip(self.board)
        self.side = player
        return self.board

    def move(self, player: int, dice: tuple[int, int], text: str) -> LegalPlay:
        """Play ``text`` (our notation) for ``player`` with ``dice``; it must be legal."""
        self.is_open("a move")
        if self.offer is not None:
            raise GammonError(f"{self.label(player)} moves, but the double to {self.offer[1]} is not answered")
        if self.last == player:
            raise GammonError(f"{self.label(player)} moves twice in a row")
        roll = f"{dice[0]}{dice[1]}"
        try:
            play = find_play(self.view(player), dice, text)
        except GammonError as exc:
            raise GammonError(f"{self.label(player)}'s {roll}: {exc}") from None
        self.board, self.last = play.board, player
        if not (play.board[1:26] > 0).any():  # the mover has borne off its last checker
            self.winner = player
        return play

    def can_move(self, player: int, dice: tuple[int, int]) -> bool:
        """Whether ``player`` has a legal move with ``dice`` now."""
        return bool(legal_plays(self.view(player), dice)[0].notation)

    def double(self, player: int) -> tuple[str, int]:
        """``player`` turns the cube: ("double", value), or ("beaver", value) when it answers a double so."""
        self.is_open("a double")
        if self.offer is not None:
            doubler, value = self.offer
            if doubler == player:
                raise GammonError(f"{self.label(player)} doubles twice in a row")
            self.offer, self.beavered = (player, 2 * value), True
            return "beaver", 2 * value
        if self.last is None:
            raise GammonError("no double before the opening roll is played")
        if self.last == player:
            raise GammonError(f"{self.label(player)} doubles after its own move; a double comes before one's roll")
        self.offer = (player, 2 * self.cube)
        return "double", 2 * self.cube

    def answer(self, player: int, kind: str) -> int:
        """``player`` takes or drops the pending double; the cube's new value (0 for a drop)."""
        self.is_open(f"a {kind}")
        if self.offer is None or self.offer[0] == player:
            raise GammonError(f"{self.label(player)} {kind}s, but no double is offered to it")
        doubler, value = self.offer
        self.offer, self.beavered = None, False
        if kind == "drop":
            self.winner = doubler
            return 0
        self.cube = value
        return value

    def resign(self, player: int) -> None:
        """``player`` offers to resign (the game goes on unless it is accepted)."""
        self.is_open(f"a resignation by {self.label(player)}")

    def check_result(self, winner: int | None, resigned: bool) -> None:
        """The recorded result (``winner``, by resignation or not) must agree with the play."""
        if winner is None:
            if self.winner is not None:
                raise GammonError(f"{self.label(self.winner)} has won, but the game has no result (RE)")
        elif resigned:
            if self.winner is not None:
                raise GammonError(f"the result says {self.label(1 - winner)} resigned, but the play had already "
                                  "ended the game")
        elif self.winner is None:
            raise GammonError(f"the result says {self.label(winner)} wins, but the play does not end the game")
        elif self.winner != winner:
            raise GammonError(f"the result says {self.label(winner)} wins, but {self.label(self.winner)} won")


# ---------------------------------------------------------------- reading


def _number(text: str, what: str) -> int:
    """``text`` as a whole number (at most six digits, no sign); GammonError naming ``what`` otherwise."""
    if not text.isdigit() or len(text) > 6:
        raise GammonError(f"{what} needs a whole number; got {text!r}")
    return int(text)


def _match_info(values: list[str]) -> dict[str, int]:
    """MI's values (``length:5``, ``game:0``, ``ws:1``, ``bs:3``) as numbers; keys gnubg does not write are
    skipped, as gnubg skips them."""
    info = {}
    for value in values:
        key, sep, number = value.partition(":")
        if not sep:
            raise GammonError(f"cannot read MI value {value!r}: expected key:number")
        if key in ("length", "game", "ws", "bs"):
            info[key] = _number(number, f"MI {key}")
    return info


class _Root:
    """What a game's first node says: match length, game number, score, players, rules, result."""

    def __init__(self, node: _Node, ordinal: int):
        if "B" in node.props or "W" in node.props:
            raise GammonError("a move in a game's first node: that node holds the game information")
        if node.value("GM") != "6":
            raise GammonError(f"not a backgammon game: GM[{node.value('GM') or ''}] (backgammon is GM[6])")
        info = _match_info(node.props.get("MI", []))
        self.length = info.get("length", 0)
        check_match_length(self.length)
        self.number = info.get("game", ordinal - 1) + 1
        self.score = (info.get("ws", 0), info.get("bs", 0))
        self.names = (node.value("PW") or "player 0", node.value("PB") or "player 1")
        self.rules = set((node.value("RU") or "").split(":")) - {""}
        self.variant = self.read_variant()
        self.cube = _number(node.value("CV") or "1", "CV (the cube at the start)")
        if self.cube & (self.cube - 1) or not self.cube:
            raise GammonError(f"the cube is a power of 2; got CV[{self.cube}]")
        self.winner, self.points, self.resigned = self.read_result(node.value("RE"))

    def read_variant(self) -> str:
        """The variant RU names (standard when it names none)."""
        variants = [v for v, rule in RULE_OF_VARIANT.items() if rule in self.rules]
        if {"Hypergammon1", "Hypergammon2"} & self.rules:
            raise GammonError("hypergammon with 1 or 2 checkers is not supported (only Hypergammon3)")
        return variants[0] if variants else "standard"

    @staticmethod
    def read_result(text: str | None) -> tuple[int | None, int, bool]:
        """RE as (winner, points, by resignation); (None, 0, False) without one."""
        if text is None:
            return None, 0, False
        m = _RESULT.fullmatch(text)
        if not m or int(m.group(2)) < 1:
            raise GammonError(f"cannot read result RE[{text}]: expected W+points or B+points, "
                              "with R after it for a resignation")
        return COLOURS.index(m.group(1)), int(m.group(2)), m.group(3) == "R"


def _start_match(log: MatchLog, root: _Root, node: _Node) -> None:
    """Fill the match's own fields from its first game."""
    log.players, log.length, log.variant = root.names, root.length, root.variant
    log.event, log.date, log.place = node.value("EV") or "", node.value("DT") or "", node.value("PC") or ""
    log.comment = node.value("GC") or ""
    if log.length:
        log.crawford = "Crawford" in root.rules
    else:  # the Crawford rule has no meaning in money play: the field keeps its default
        log.jacoby, log.beavers = "Jacoby" in root.rules, "Beavers" in root.rules


def _check_same_match(log: MatchLog, root: _Root) -> None:
    """A later game must belong to the match its first game began: same length, players and variant."""
    if root.length != log.length:
        raise GammonError(f"this game is of a match to {root.length}, the first game of one to {log.length}")
    if root.names != log.players:
        raise GammonError(f"this game is between {root.names[0]} and {root.names[1]}, the first game between "
                          f"{log.players[0]} and {log.players[1]}")
    if root.variant != log.variant:
        raise GammonError(f"this game is {root.variant}, the first game {log.variant}")


def _read_node(game: _Game, node: _Node) -> list[Action]:
    """The actions of one node after the first: a move or cube action, a declined resignation, or nothing."""
    if SETUP & node.props.keys():
        raise GammonError(f"positions or cubes set by hand ({', '.join(sorted(SETUP & node.props.keys()))}) are "
                          "not supported: a match record starts from the starting position")
    comment = node.value("C") or ""
    if "RD" in node.props:
        return _read_declined(game, node.value("RD"), comment, node.line)
    colours = [c for c in COLOURS if c in node.props]
    if len(colours) > 1:
        raise GammonError("a node holds both a W and a B move")
    if not colours:
        return []  # gnubg's dice set by hand (PL, DI) or analysis alone: the next move carries its dice
    player = COLOURS.index(colours[0])
    text = node.value(colours[0])
    if text == "double":
        kind, value = game.double(player)
        return [Action(player, kind, value=value, line=node.line, comment=comment)]
    if text in ("take", "drop"):
        value = game.answer(player, text)
        return [Action(player, text, value=value, line=node.line, comment=comment)]
    dice, steps = _read_move(text, player)
    play = game.move(player, dice, format_move(game.view(player), steps))
    return [Action(player, "move", dice, play.notation, line=node.line, comment=comment)]


def _read_declined(game: _Game, text: str, comment: str, line: int) -> list[Action]:
    """Our RD node (``RD[W:gammon]``): W offered to resign a gammon and B declined."""
    colour, _, name = text.partition(":")
    if colour not in COLOURS or name not in RESIGN_VALUES:
        raise GammonError(f"cannot read RD[{text}]: expected W or B, ':', and single, gammon or backgammon")
    player = COLOURS.index(colour)
    game.resign(player)
    return [Action(player, "resign", value=RESIGN_VALUES[name], line=line, comment=comment),
            Action(1 - player, "reject", line=line)]


def _accepted_resignation(game: _Game, root: _Root, line: int) -> list[Action]:
    """The resignation that RE's ``R`` records: offered by the loser, accepted by the winner.

    gnubg keeps no node for it; the points per cube unit are the points won over the cube.
    """
    loser = 1 - root.winner
    value, rest = divmod(root.points, game.cube)
    if rest or value not in RESIGN_NAMES:
        raise GammonError(f"RE says {game.label(loser)} resigned and paid {root.points} with the cube at "
                          f"{game.cube}: that is not 1, 2 or 3 times the cube")
    return [Action(loser, "resign", value=value, line=line), Action(root.winner, "accept", line=line)]


def _pending_roll(game: _Game, node: _Node) -> bool:
    """Whether ``node`` is a roll not yet played: gnubg saves a game stopped between the roll and the move
    as a move node with the dice alone, which would otherwise read as a turn with no legal move."""
    colours = [c for c in COLOURS if c in node.props]
    if len(colours) != 1 or not re.fullmatch("[1-6][1-6]", node.value(colours[0])):
        return False
    dice = node.value(colours[0])
    return game.can_move(COLOURS.index(colours[0]), (int(dice[0]), int(dice[1])))


def _read_game(log: MatchLog, line: int, nodes: list[_Node], ordinal: int) -> GameLog:
    """One game tree as a GameLog (the first also fills the match's fields)."""
    number, at = ordinal, nodes[0].line
    try:
        root = _Root(nodes[0], ordinal)
        number = root.number
        if log.games:
            _check_same_match(log, root)
        else:
            _start_match(log, root, nodes[0])
        game = GameLog(root.number, root.score, crawford="CrawfordGame" in root.rules, line=line, cube=root.cube)
        state = _Game(root.variant, root.cube, root.names)
        for node in nodes[1:]:
            at = node.line
            if node is nodes[-1] and root.winner is None and _pending_roll(state, node):
                break
            game.actions.extend(_read_node(state, node))
        at = nodes[0].line
        state.check_result(root.winner, root.resigned)
        if root.resigned:
            game.actions.extend(_accepted_resignation(state, root, at))
    except GammonError as exc:
        raise MatchFileError(str(exc), log.file, number, at) from None
    game.winner, game.points = root.winner, root.points
    if any(a.kind == "beaver" for a in game.actions):
        log.beavers = True  # gnubg records beavers but not the rule that allows them
    return game


def read_sgf(text: str, file: str = "") -> MatchLog:
    """The match or money session in gnubg's SGF ``text``; MatchFileError names the file, game and line of a fault.

    ``file`` is only used in messages and stored as ``MatchLog.file``.
    """
    trees = _Syntax(text, file).collection()
    if not trees:
        raise MatchFileError("no game in the file (a game starts with '(;')", file)
    log = MatchLog(file=file)
    for ordinal, (line, nodes) in enumerate(trees, 1):
        log.games.append(_read_game(log, line, nodes, ordinal))
    for game in log.games[:-1]:
        if game.winner is None:
            raise MatchFileError("the game has no result (RE), yet another game follows", file, game.number,
                                 game.line)
    return log


def _decode(raw: bytes, file: str) -> str:
    """The text of an .sgf file in the character set its CA property names (ISO-8859-1 without one, as
    SGF says); a UTF-8 byte-order mark is dropped."""
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    m = _CHARSET.search(raw)
    charset = m.group(1).decode("latin-1").strip() if m else "ISO-8859-1"
    try:
        return raw.decode(charset)
    except LookupError:
        raise MatchFileError(f"unknown character set CA[{charset}]", file) from None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise MatchFileError(f"the text is not valid {charset} (byte {exc.start})", file, line=line) from None


def load_sgf(path) -> MatchLog:
    """The .sgf file at ``path`` as a MatchLog (``MatchLog.file`` is the path)."""
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise MatchFileError(f"cannot read the file: {exc.strerror or exc}", file) from None
    return read_sgf(_decode(raw, file), file)


# ---------------------------------------------------------------- writing


def _property(name: str, *values: str) -> str:
    return name + "".join(f"[{_escape(v)}]" for v in values)


def _rules(log: MatchLog, game: GameLog) -> list[str]:
    """RU's tokens, in gnubg's order; ``Beavers`` is ours (gnubg ignores tokens it does not know)."""
    rules = []
    if log.length and log.crawford:
        rules.append("Crawford")
    if game.crawford:
        rules.append("CrawfordGame")
    if not log.length and log.jacoby:
        rules.append("Jacoby")
    if not log.length and log.beavers:
        rules.append("Beavers")
    if log.variant not in RULE_OF_VARIANT:
        raise GammonError(f"unknown variant {log.variant!r}; choose one of {sorted(RULE_OF_VARIANT)}")
    if RULE_OF_VARIANT[log.variant]:
        rules.append(RULE_OF_VARIANT[log.variant])
    return rules


def _root(log: MatchLog, game: GameLog, cube: int, resigned: bool) -> str:
    """A game's first node: the fixed header, match information, players, rules and result."""
    parts = ["FF[4]GM[6]CA[UTF-8]AP[gammon]",
             _property("MI", f"length:{log.length}", f"game:{game.number - 1}", f"ws:{game.score[0]}",
                       f"bs:{game.score[1]}"),
             _property("PW", log.players[0]), _property("PB", log.players[1])]
    if game is log.games[0]:  # gnubg writes the match's details with its first game only
        parts += [_property(name, text) for name, text in
                  (("DT", log.date), ("EV", log.event), ("PC", log.place), ("GC", log.comment)) if text]
    rules = _rules(log, game)
    if rules:
        parts.append(_property("RU", ":".join(rules)))
    if cube > 1:
        parts.append(_property("CV", str(cube)))
    if game.winner is not None:
        parts.append(_property("RE", f"{COLOURS[game.winner]}+{game.points}{'R' if resigned else ''}"))
    return "(;" + "".join(parts)


def _node(player: int, value: str, comment: str) -> str:
    return f"\n;{COLOURS[player]}[{value}]" + (_property("C", comment) if comment else "")


def _write_action(state: _Game, action: Action) -> str:
    """The node of a move or cube action (after checking it against the play so far)."""
    player = action.player
    if action.kind == "move":
        if action.dice is None or len(action.dice) != 2:
            raise GammonError(f"{state.label(player)}'s move has no dice")
        dice = (int(action.dice[0]), int(action.dice[1]))
        play = state.move(player, dice, action.move)
        return _node(player, _write_move(dice, play, player), action.comment)
    if action.kind in ("double", "beaver"):
        kind, _ = state.double(player)
        if kind != action.kind:
            raise GammonError(f"{state.label(player)} {action.kind}s, but the play so far makes it a {kind}")
        return _node(player, "double", action.comment)
    state.answer(player, action.kind)  # take or drop: the other kinds are handled by the caller
    return _node(player, action.kind, action.comment)


def _write_resignation(state: _Game, game: GameLog, index: int) -> tuple[str, bool]:
    """The resignation at ``game.actions[index]`` and its answer: an RD node when declined, nothing when
    accepted (RE's ``R`` says it); returns (text, accepted)."""
    offer = game.actions[index]
    answer = game.actions[index + 1] if index + 1 < len(game.actions) else None
    if answer is None or answer.kind not in ("accept", "reject") or answer.player != 1 - offer.player:
        raise GammonError(f"{state.label(offer.player)}'s resignation needs an accept or reject by the opponent "
                          "right after it")
    if offer.value not in RESIGN_NAMES:
        raise GammonError(f"a resignation offers 1, 2 or 3 points per cube; got {offer.value}")
    state.resign(offer.player)
    if answer.kind == "reject":
        text = _property("RD", f"{COLOURS[offer.player]}:{RESIGN_NAMES[offer.value]}")
        return "\n;" + text + (_property("C", offer.comment) if offer.comment else ""), False
    if index + 2 != len(game.actions) or game.winner != answer.player:
        raise GammonError("an accepted resignation ends the game: it must be the last action, and its "
                          "acceptor the winner")
    if game.points != offer.value * state.cube:
        raise GammonError(f"the resignation of {offer.value} per cube with the cube at {state.cube} pays "
                          f"{offer.value * state.cube}, but the game records {game.points} points")
    return "", True


def _write_game(log: MatchLog, game: GameLog) -> str:
    """One game tree; the play is replayed, so an illegal move or a misplaced cube action is an error."""
    cube = game.cube
    state = _Game(log.variant, cube, log.players)
    nodes, resigned, index = [], False, 0
    while index < len(game.actions):
        action = game.actions[index]
        if state.beavered and action.kind not in ("take", "drop", "beaver"):
            # gnubg always answers a beaver; our records may let the doubler play on, which is a take
            doubler = 1 - state.offer[0]
            nodes.append(_node(doubler, "take", ""))
            state.answer(doubler, "take")
        if action.kind == "resign":
            text, resigned = _write_resignation(state, game, index)
            nodes.append(text)
            index += 2
            continue
        if action.kind in ("accept", "reject"):
            raise GammonError(f"{state.label(action.player)} {action.kind}s, but no resignation was offered")
        nodes.append(_write_action(state, action))
        index += 1
    state.check_result(game.winner, resigned)
    return _root(log, game, cube, resigned) + "".join(nodes) + ")\n"


def write_sgf(log: MatchLog) -> str:
    """``log`` as gnubg's SGF text (one game tree per game); MatchFileError names the game of a fault
    (an illegal move, a cube action out of turn, a result the play does not give)."""
    if not log.games:
        raise MatchFileError("a match file holds at least one game; this log has none", log.file)
    parts = []
    for game in log.games:
        try:
            if game.winner is None and game is not log.games[-1]:
                raise GammonError("the game has no result, yet another game follows")
            parts.append(_write_game(log, game))
        except GammonError as exc:
            raise MatchFileError(str(exc), log.file, game.number) from None
    return "".join(parts)


def save_sgf(log: MatchLog, path) -> None:
    """Write ``log`` to ``path`` as .sgf (UTF-8), whole or not at all."""
    atomic_text(path, write_sgf(log))
