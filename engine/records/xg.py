"""eXtreme Gammon's files read into our types: a match (``.xg``) as a :class:`MatchLog`, with XG's own
analysis of each decision kept as :class:`Verdict`, and a position (``.xgp``) as a board and
:class:`MatchState`.

``docs/xg-format.md`` describes the format as we read it, every field we use and every one we
leave, in our own words (from the layout XG's authors published). In brief: an 8,232-byte
header (``RGMH``, a thumbnail), then an archive of files, each zlib-compressed or stored, whose
index and checksum sit at the end of the file; its ``temp.xg`` is a run of 2,560-byte records:
the match header, then per game a game header, a cube record before each roll (the doubling
decision, with XG's evaluation) and a move record (the roll, the play, XG's candidates), and a
game footer (the result).

Reading checks what the records say against each other: every play is legal for its dice from
the position the record shows (:func:`~engine.rules.notation.find_play`), leads to the position
the record shows after it, and that position is where the next record starts, so an illegal or
edited game is refused naming the file, the game and the record (records are counted from 1).
A file larger than :data:`MAX_FILE_BYTES` is refused before anything is decompressed, and no
archived file may claim more than :data:`MAX_ARCHIVED_BYTES`.
"""

from __future__ import annotations

import math
import struct
import zlib
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from gammon.engine.cube.met import check_match_length
from gammon.engine.cube.state import best_cube_words
from gammon.engine.errors import GammonError
from gammon.engine.records.formats import MAX_SCORE, MatchState
from gammon.engine.records.matchlog import Action, GameLog, MatchFileError, MatchLog, Verdict
from gammon.engine.rules.board import flip, starting_board, validate, variant_checkers
from gammon.engine.rules.notation import LegalPlay, find_play, format_move, legal_plays

MAX_FILE_BYTES = 32 << 20  # an .xg or .xgp file on disk; a long match with rollouts is a few MB
MAX_ARCHIVED_BYTES = 64 << 20  # one archived file once decompressed: 26,000 records of temp.xg
ENGINE = "XG"

# -- the container: a header, a thumbnail, an archive whose index and checksum end the file -------------------

HEADER_BYTES = 8232  # the RGMH header: magic, sizes, a GUID, four names of 1,024 UTF-16 characters
MAGIC = b"RGMH"
TRAILER = struct.Struct("<IiiiiI12x")  # checksum, file count, version, index size, files' size, index compressed
ENTRY = struct.Struct("<256s256siiiIBBxx")  # name, path, size, stored size, start, checksum, stored?, level
MAX_FILES = 64  # XG writes four (temp.xg, .xgi, .xgr, .xgc)
GAME_FILE = "temp.xg"

# -- temp.xg: fixed-size records, each a Pascal variant record; offsets from the record's start --------------

RECORD_BYTES = 2560
TYPE_OFFSET = 8  # after two unused pointers
MATCH_HEADER, GAME_HEADER, CUBE, MOVE, GAME_FOOTER, MATCH_FOOTER = range(6)
RECORD_NAMES = ("match header", "game header", "cube record", "move record", "game footer", "match footer")
MATCH_MAGIC = b"DMLI"  # the match header's magic number $494C4D44, little-endian
MONEY_LENGTH = 99999  # XG's match length of a money session
NOT_ANALYSED = -1000.0  # XG's error where nothing was analysed
MAX_CANDIDATES = 32

MATCH_FIELDS = {  # tsHeaderMatch
    "player1_ansi": (9, "41p"),  # SPlayer1, string[40]: the first player's name, for XG 1
    "player2_ansi": (50, "41p"),  # SPlayer2
    "length": (92, "i"),  # MatchLength: points, MONEY_LENGTH for money
    "variation": (96, "i"),  # Variation: 0 backgammon, 1 nackgammon, 2 hypergammon, 3 longgammon
    "crawford": (100, "?"),  # Crawford: the rule is in force (matches)
    "jacoby": (101, "?"),  # Jacoby (money)
    "beaver": (102, "?"),  # Beaver (money)
    "date": (128, "d"),  # Date: a Delphi TDateTime, days since 1899-12-30
    "event_ansi": (136, "129p"),  # SEvent, string[128]
    "location_ansi": (283, "129p"),  # SLocation
    "round_ansi": (417, "129p"),  # SRound
    "version": (552, "i"),  # version: the file's format version (fields below appear from a version on)
    "magic": (556, "4s"),  # Magic: MATCH_MAGIC
}
MATCH_UNICODE_FIELDS = {  # version 24 on: the names again, in UTF-16 (TShortUnicodeString, 129 characters)
    "event": (622, "258s"), "player1": (880, "258s"), "player2": (1138, "258s"),
    "location": (1396, "258s"), "round": (1654, "258s"),
}
GAME_FIELDS = {  # tsHeaderGame
    "score1": (12, "i"), "score2": (16, "i"),  # score1, score2: the score before the game
    "crawford": (20, "?"),  # CrawfordApply: this is the Crawford game
    "start": (21, "26b"),  # PosInit: the position the game starts from
    "number": (48, "i"),  # GameNumber, from 1
    "auto_doubles": (64, "i"),  # NumberOfAutoDouble (version 26 on): the cube starts at 2 ** this
}
CUBE_FIELDS = {  # tsCube: the player on roll's doubling decision before the roll, and the answer
    "player": (12, "i"),  # Actif: 1 the first player, -1 the second
    "double": (16, "i"),  # Double: 1 doubled; 0 did not; below 0 could not (the opening roll: -2)
    "take": (20, "i"),  # Take: 1 take, 0 pass, 2 beaver; -1 no answer (yet)
    "beaver": (24, "i"),  # BeaverR: the doubler's answer to a beaver: 1 plays on, 0 pays, 2 raccoon
    "cube": (32, "i"),  # CubeB: log2 of the cube, + owned by the player on roll, - by the opponent, 0 centred
    "board": (36, "26b"),  # Position: the board, from the player on roll's side
    "no_double": (152, "f"),  # DoubleD.equB: XG's equity of no double, for the player on roll
    "double_take": (156, "f"),  # DoubleD.equDouble: of double, take
    "double_pass": (160, "f"),  # DoubleD.equDrop: of double, pass
    "cube_error": (200, "d"),  # ErrCube: the doubling decision's error (NOT_ANALYSED: none)
    "take_error": (216, "d"),  # ErrTake: the answer's error
    "level": (232, "i"),  # AnalyzeC: the depth of XG's analysis (LEVELS)
}
MOVE_FIELDS = {  # tsMove: a roll and its play, with XG's analysis of the candidates
    "before": (9, "26b"),  # PositionI: the board before the play, from the mover's side
    "after": (35, "26b"),  # PositionEnd: after it, from the same side
    "player": (64, "i"),  # ActifP: 1 the first player, -1 the second
    "play": (68, "8i"),  # Moves: (from, to) pairs of the steps (POINTS); a from of -1 ends them
    "dice": (100, "2i"),  # Dice
    "cube": (108, "i"),  # CubeA: log2 of the cube, + owned by the mover, - by the opponent, 0 centred
    "evaluated": (120, "i"),  # NMoveEval: candidates analysed
    "candidates": (188, "i"),  # DataMoves.NMoves: candidates stored (at most MAX_CANDIDATES)
    "candidate_boards": (192, "832b"),  # DataMoves.PosPlayed: 32 boards of 26 cells, each candidate's result
    "candidate_evals": (1408, "224f"),  # DataMoves.Eval: 32 times 7: six chances, then the equity
    "error": (2312, "d"),  # ErrMove: the play's error (NOT_ANALYSED: none)
    "level": (2472, "i"),  # AnalyzeM: the depth of XG's analysis (LEVELS)
}
FOOTER_FIELDS = {  # tsFooterGame
    "winner": (24, "i"),  # Winner: 1 the first player, -1 the second
    "points": (28, "i"),  # Pointswon
    "termination": (32, "i"),  # Termination: 0 pass, 1-3 single to backgammon; +100 resigned, +1000 settled
}
LAYOUTS = {MATCH_HEADER: MATCH_FIELDS, GAME_HEADER: GAME_FIELDS, CUBE: CUBE_FIELDS, MOVE: MOVE_FIELDS,
           GAME_FOOTER: FOOTER_FIELDS, MATCH_FOOTER: {}}  # a match footer holds nothing we read
# POINTS: a step's from and to are the mover's points less one (0..23), the bar 24, and off any number below 0.
LEVELS = {12: "3-ply red", 100: "rollout", 998: "opening book", 999: "opening book", 1000: "XG Roller",
          1001: "XG Roller+", 1002: "XG Roller++"}  # XG's PLAYERLEVEL table; 0..6 are 1- to 7-ply
VARIANTS = {0: "standard", 1: "nackgammon", 2: "hypergammon"}
PLAYERS = {1: 0, -1: 1}  # XG's first player (1) is our player 0, its second (-1) our player 1
RESIGNED, SETTLED = 100, 1000


def _fields(record: bytes, layout: dict[str, tuple[int, str]]) -> dict:
    """The fields of ``layout`` (name: offset, struct format) read from ``record``; one value, or a tuple."""
    values = {}
    for name, (offset, form) in layout.items():
        value = struct.unpack_from("<" + form, record, offset)
        values[name] = value[0] if len(value) == 1 else value
    return values


def _unicode(raw: bytes) -> str:
    """A #0-terminated UTF-16 string (XG's WideChar arrays)."""
    return raw.decode("utf-16-le", errors="replace").split("\0", 1)[0].strip()


def _ansi(raw: bytes) -> str:
    """A Pascal short string (its length first) in Windows' Latin alphabet."""
    return raw.decode("cp1252", errors="replace").strip()


def _text(fields: dict, name: str) -> str:
    """A name of the match header: its UTF-16 field (version 24 on), else its ANSI one."""
    return (_unicode(fields[name]) if name in fields else "") or _ansi(fields[name + "_ansi"])


def level_name(level: int) -> str:
    """The words for XG's analysis depth ``level`` (its PLAYERLEVEL table)."""
    return LEVELS.get(level, f"{level + 1}-ply" if 0 <= level <= 6 else f"level {level}")


# ---------------------------------------------------------------- the archive


def _archived(data: bytes, file: str, name: str = GAME_FILE) -> bytes:
    """The file ``name`` of the archive in ``data`` (an .xg or .xgp file's bytes), decompressed and checked."""
    if len(data) < HEADER_BYTES + TRAILER.size or data[:4] != MAGIC:
        raise MatchFileError("not an eXtreme Gammon file: it does not start with an RGMH header of "
                             f"{HEADER_BYTES} bytes followed by an archive", file)
    end = len(data) - TRAILER.size
    checksum, count, _version, index_size, files_size, index_packed = TRAILER.unpack_from(data, end)
    start = end - index_size - files_size
    if not (0 < count <= MAX_FILES and 0 < index_size and 0 <= files_size and start >= HEADER_BYTES):
        raise MatchFileError(f"the archive's index ({count} files, {index_size} + {files_size} bytes) does not fit "
                             "the file: it is cut short or damaged", file)
    if zlib.crc32(data[start:end]) != checksum:
        raise MatchFileError("the archive's checksum does not match its bytes: the file is damaged or cut short", file)
    index = data[start + files_size:end]
    if index_packed:
        index = _inflate(index, count * ENTRY.size, "the archive's index", file)
    if len(index) != count * ENTRY.size:
        raise MatchFileError(f"the archive's index holds {len(index)} bytes, not {count} entries", file)
    for raw_name, _path, size, stored, offset, crc, kind, _level in ENTRY.iter_unpack(index):
        if raw_name[1:1 + raw_name[0]].decode("latin-1") == name:
            return _entry(data[start:start + files_size], name, size, stored, offset, crc, kind, file)
    raise MatchFileError(f"the archive holds no {name}, the file of the games", file)


def _entry(files: bytes, name: str, size: int, stored: int, offset: int, crc: int, kind: int, file: str) -> bytes:
    """One archived file: ``stored`` bytes at ``offset``, zlib-compressed (``kind`` 0) or not (1), ``size`` bytes
    once decompressed (at most MAX_ARCHIVED_BYTES), with CRC-32 ``crc``."""
    if not (0 <= size <= MAX_ARCHIVED_BYTES):
        raise MatchFileError(f"{name} claims {size} bytes; an archived file is at most {MAX_ARCHIVED_BYTES} here", file)
    if not (0 <= offset and 0 <= stored and offset + stored <= len(files)) or kind not in (0, 1):
        raise MatchFileError(f"{name}'s entry in the archive's index is damaged", file)
    raw = files[offset:offset + stored]
    content = _inflate(raw, size, name, file) if kind == 0 else raw
    if len(content) != size or zlib.crc32(content) != crc:
        raise MatchFileError(f"{name} does not match its size or checksum: the file is damaged", file)
    return content


def _inflate(raw: bytes, size: int, what: str, file: str) -> bytes:
    """``raw`` decompressed (zlib), never more than ``size`` + 1 bytes (a bomb stops there)."""
    inflater = zlib.decompressobj()
    try:
        content = inflater.decompress(raw, size + 1)
    except zlib.error as exc:
        raise MatchFileError(f"{what} does not decompress ({exc}): the file is damaged", file) from None
    if len(content) > size or not inflater.eof:
        raise MatchFileError(f"{what} does not decompress to the {size} bytes it claims: the file is damaged", file)
    return content


def _read_bytes(path) -> bytes:
    """The bytes of the file at ``path``, refused unread when it is larger than MAX_FILE_BYTES."""
    file = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise MatchFileError(f"the file has {size} bytes; an eXtreme Gammon file is at most {MAX_FILE_BYTES} "
                                 "here, and a larger one is refused before it is decompressed", file)
        return Path(path).read_bytes()
    except OSError as exc:
        raise MatchFileError(f"cannot read the file: {exc.strerror or exc}", file) from None


# ---------------------------------------------------------------- the records


def records(data: bytes, file: str = "") -> list[tuple[int, dict]]:
    """The records of an .xg or .xgp file's ``temp.xg``, each as (type, fields) with the fields this module reads:
    :data:`MATCH_FIELDS` (and :data:`MATCH_UNICODE_FIELDS` from version 24), :data:`GAME_FIELDS`,
    :data:`CUBE_FIELDS`, :data:`MOVE_FIELDS`, :data:`FOOTER_FIELDS`; a match footer has none we read."""
    games = _archived(data, file)
    if not games or len(games) % RECORD_BYTES:
        raise MatchFileError(f"{GAME_FILE} holds {len(games)} bytes, not a whole number of {RECORD_BYTES}-byte "
                             "records: it is cut short or not a match", file)
    result = []
    for number, offset in enumerate(range(0, len(games), RECORD_BYTES), 1):
        record = games[offset:offset + RECORD_BYTES]
        kind = record[TYPE_OFFSET]
        if kind > MATCH_FOOTER:
            raise MatchFileError(f"record type {kind} is none we read (match, game, cube, move, footers)", file,
                                 line=number, unit="record")
        if number == 1 and kind != MATCH_HEADER:
            raise MatchFileError(f"the first record is a {RECORD_NAMES[kind]}, not the match header", file,
                                 line=number, unit="record")
        fields = _fields(record, LAYOUTS[kind])
        if kind == MATCH_HEADER and fields["version"] >= 24:
            fields.update(_fields(record, MATCH_UNICODE_FIELDS))
        result.append((kind, fields))
    return result


def _steps(pairs) -> list[tuple[int, int]]:
    """XG's (from, to) pairs as our steps: points 1..24, the bar 25, off 0 (an all-zero list: no play)."""
    if not any(pairs):
        return []
    steps = []
    for start, end in zip(pairs[::2], pairs[1::2]):
        if start == -1:
            break
        steps.append((start + 1, end + 1 if end >= 0 else 0))
    return steps


def _board(cells, variant: str) -> np.ndarray:
    """XG's PositionEngine as our board (the same cells; the opponent's bar is stored negative)."""
    board = np.array(cells, dtype=np.int8)
    board[0] = -board[0]
    validate(board, variant_checkers(variant))
    return board


def _date(days: float) -> str:
    """A Delphi TDateTime as YYYY-MM-DD ("" for 0, XG's no date)."""
    if days == 0:
        return ""
    if not (math.isfinite(days) and 1 <= days < 2958466):
        raise GammonError(f"the match date {days!r} is no date")
    return (datetime(1899, 12, 30) + timedelta(days=int(days))).strftime("%Y-%m-%d")


class _Reader:
    """Turns the records of one file into a MatchLog, checking each against the ones before it."""

    def __init__(self, file: str):
        self.file = file
        self.log = MatchLog(file=file, unit="record")
        self.game: GameLog | None = None
        self.number = 0  # the record being read, from 1
        self.board = None  # the position the next roll or cube decision starts from, from the side on roll
        self.on_roll: int | None = None
        self.cube = 1
        self.offer = 0  # the cube a pending double offers (0: none)
        self.pending: dict = {}  # XG's verdict on the player on roll's decision not to double, for his move
        self.version = 0  # the file's format version, from its match header

    def fail(self, reason: str) -> MatchFileError:
        return MatchFileError(reason, self.file, self.game.number if self.game else None, self.number, "record")

    def read(self, items: list[tuple[int, dict]]) -> MatchLog:
        handlers = {MATCH_HEADER: self.match, GAME_HEADER: self.start_game, CUBE: self.cube_record,
                    MOVE: self.move, GAME_FOOTER: self.end_game, MATCH_FOOTER: self.end_match}
        for self.number, (kind, fields) in enumerate(items, 1):
            try:
                handlers[kind](fields)
            except MatchFileError:
                raise
            except GammonError as exc:  # a board, a play or a state that cannot be: in one line, where it is
                raise self.fail(str(exc)) from None
        if not self.log.games:
            raise MatchFileError("the file holds no game", self.file)
        return self.log

    # -- records

    def match(self, f: dict) -> None:
        if self.number != 1:
            raise self.fail("a second match header")
        if f["magic"] != MATCH_MAGIC:
            raise self.fail(f"the match header's magic number is {f['magic']!r}, not {MATCH_MAGIC!r}")
        if f["variation"] not in VARIANTS:
            raise self.fail(f"variation {f['variation']} (XG's 3 is longgammon) is none we play: backgammon, "
                            "nackgammon, hypergammon")
        length = 0 if f["length"] == MONEY_LENGTH else f["length"]
        if length < 0:
            raise self.fail(f"the match length is {length}")
        check_match_length(length)
        log = self.log
        log.players = (_text(f, "player1"), _text(f, "player2"))
        log.length, log.variant, log.date = length, VARIANTS[f["variation"]], _date(f["date"])
        log.event, log.place, round_ = _text(f, "event"), _text(f, "location"), _text(f, "round")
        log.comment = f'[Round "{round_}"]' if round_ else ""  # as a .mat file's header keeps it
        if length:
            log.crawford = f["crawford"]
        else:
            log.jacoby, log.beavers = f["jacoby"], f["beaver"]
        self.version = f["version"]

    def start_game(self, f: dict) -> None:
        if self.game is not None and self.game.winner is None:
            raise self.fail("a game starts before the one before it has a result")
        if f["number"] != len(self.log.games) + 1:
            raise self.fail(f"game number {f['number']}, but {len(self.log.games)} game(s) came before")
        score, length = (f["score1"], f["score2"]), self.log.length
        if min(score) < 0 or max(score) >= (length or MAX_SCORE):
            raise self.fail(f"the score before the game is {score[0]}-{score[1]}" + (f" in a {length}-point match"
                                                                                      if length else ""))
        doubles = f["auto_doubles"] if self.version >= 26 else 0
        if not 0 <= doubles <= 15:
            raise self.fail(f"{doubles} automatic doubles")
        self.game = GameLog(f["number"], score, crawford=f["crawford"], line=self.number,
                            cube=1 << doubles)
        self.log.games.append(self.game)
        start = starting_board(self.log.variant)
        if not np.array_equal(_board(f["start"], self.log.variant), start):
            raise self.fail("the game starts from a position set up by hand; we read games from the starting "
                            "position only")
        self.board, self.on_roll, self.cube, self.offer, self.pending = start, None, self.game.cube, 0, {}

    def cube_record(self, f: dict) -> None:
        player = self.player(f["player"])
        self.check_board(f["board"])
        if self.offer:
            raise self.fail("a cube record while a double waits for its answer")
        verdicts = _cube_verdicts(f)
        if f["double"] != 1:
            self.pending = {"cube": verdicts["cube"]} if "cube" in verdicts else {}
            return
        self.offer = 2 * self.cube
        actions = self.game.actions
        actions.append(Action(player, "double", value=self.offer, line=self.number,
                              analysis={k: v for k, v in verdicts.items() if k == "cube"}))
        answer = {k: v for k, v in verdicts.items() if k == "take"}
        taker = 1 - player
        if f["take"] == 1:
            actions.append(Action(taker, "take", value=self.offer, line=self.number, analysis=answer))
        elif f["take"] == 0:
            actions.append(Action(taker, "drop", line=self.number, analysis=answer))
        elif f["take"] == 2:
            self.offer *= 2
            actions.append(Action(taker, "beaver", value=self.offer, line=self.number, analysis=answer))
            if f["beaver"] == 2:
                raise self.fail("a raccoon (the doubler redoubles the beaver): our rules play none")
            if f["beaver"] in (0, 1):
                actions.append(Action(player, "take" if f["beaver"] else "drop",
                                      value=self.offer if f["beaver"] else 0, line=self.number))
        elif f["take"] != -1:
            raise self.fail(f"the answer to the double is {f['take']}: none of take (1), pass (0), beaver (2)")
        if f["take"] in (1, 2):
            self.cube = self.offer
        if f["take"] != -1:
            self.offer = 0

    def move(self, f: dict) -> None:
        player = self.player(f["player"])
        board = self.check_board(f["before"])
        if self.offer:
            raise self.fail("a roll while a double waits for its answer")
        dice = tuple(f["dice"])
        if not all(1 <= d <= 6 for d in dice):
            raise self.fail(f"the dice are {dice[0]} and {dice[1]}")
        play = _play(board, dice, f["play"], self.log.variant, f"{self.log.players[player]}'s {dice[0]}{dice[1]}")
        if not np.array_equal(play.board, _board(f["after"], self.log.variant)):
            raise self.fail(f"{self.log.players[player]}'s {dice[0]}{dice[1]} {play.notation or '(no move)'} does "
                            "not lead to the position the record shows after it")
        analysis = dict(self.pending)
        verdict = _move_verdict(f, board, dice, self.log.variant)
        if verdict is not None:
            analysis["move"] = verdict
        self.game.actions.append(Action(player, "move", dice, play.notation, line=self.number, analysis=analysis))
        self.board, self.on_roll, self.pending = flip(play.board), 1 - player, {}

    def end_game(self, f: dict) -> None:
        game = self.in_game("game footer")
        if game.winner is not None:
            raise self.fail("a second result for the game")
        if f["winner"] not in PLAYERS:
            raise self.fail(f"the winner is {f['winner']}: neither 1 nor -1")
        if f["points"] < 1:
            raise self.fail(f"the winner scores {f['points']} points")
        game.winner, game.points = PLAYERS[f["winner"]], f["points"]
        how = f["termination"]
        if how >= SETTLED:
            raise self.fail("the game was settled (players agreed on the points): our match log has no "
                            "settlements")
        if how >= RESIGNED:
            value, rest = divmod(game.points, self.cube)
            if rest or value not in (1, 2, 3):
                raise self.fail(f"a resignation for {game.points} points with the cube at {self.cube}")
            game.actions += [Action(1 - game.winner, "resign", value=value, line=self.number),
                             Action(game.winner, "accept", line=self.number)]
        elif not 0 <= how <= 3:
            raise self.fail(f"the game's end is {how}: none of pass, single, gammon, backgammon, resigned")

    def end_match(self, f: dict) -> None:
        self.in_game("match footer")

    # -- shared checks

    def in_game(self, what: str) -> GameLog:
        if self.game is None:
            raise self.fail(f"a {what} before any game")
        return self.game

    def player(self, code: int) -> int:
        """Our player for XG's ``code``; who must be on roll (the opening roll decides who starts)."""
        game = self.in_game("cube or move record")
        if game.winner is not None:
            raise self.fail("a cube or move record after the game's result")
        if code not in PLAYERS:
            raise self.fail(f"the player is {code}: neither 1 nor -1")
        player = PLAYERS[code]
        if self.on_roll is not None and player != self.on_roll:
            raise self.fail(f"{self.log.players[player]} acts, but {self.log.players[self.on_roll]} is on roll")
        return player

    def check_board(self, cells) -> np.ndarray:
        """The record's board, which must be where the game stands."""
        board = _board(cells, self.log.variant)
        if not np.array_equal(board, self.board):
            raise self.fail("the position is not the one the game's moves lead to (edited in XG?); we read games "
                            "as played")
        return board


def _play(board: np.ndarray, dice: tuple[int, int], pairs, variant: str, what: str) -> LegalPlay:
    """The legal play that XG's (from, to) ``pairs`` describe; a GammonError naming ``what`` when there is none."""
    steps = _steps(pairs)
    for start, end in steps:
        if not (1 <= start <= 25 and 0 <= end < start):
            raise GammonError(f"{what}: the step {start - 1} to {end - 1} (XG's points) is no move")
    try:
        return find_play(board, dice, format_move(board, steps), variant)
    except GammonError as exc:
        raise GammonError(f"{what}: {exc}") from None


def _move_verdict(f: dict, board: np.ndarray, dice, variant: str) -> Verdict | None:
    """XG's analysis of the play: its candidates in its order, the first its best, each named by the legal play
    that leads to the position XG gives for it; None when there is no analysis."""
    count = min(f["evaluated"], f["candidates"])
    if count <= 0 or f["error"] == NOT_ANALYSED:
        return None
    if count > MAX_CANDIDATES:
        raise GammonError(f"{count} candidate plays; XG stores at most {MAX_CANDIDATES}")
    legal = {np.asarray(play.board, dtype=np.int8).tobytes(): play for play in legal_plays(board, dice, variant)}
    choices = []
    for i in range(count):
        play = legal.get(_board(f["candidate_boards"][26 * i:26 * i + 26], variant).tobytes())
        if play is None:
            raise GammonError(f"XG's candidate play {i + 1} leads to a position no play of {dice[0]}-{dice[1]} "
                              "leads to")
        choices.append((play.notation, float(f["candidate_evals"][7 * i + 6])))
    return Verdict(ENGINE, level_name(f["level"]), choices[0][0], abs(f["error"]), choices)


def _cube_verdicts(f: dict) -> dict[str, Verdict]:
    """XG's analysis of a cube record: the doubling decision (``cube``) and the answer (``take``), where analysed."""
    nd, dt, dp = (float(f[key]) for key in ("no_double", "double_take", "double_pass"))
    choices = [("no double", nd), ("double, take", dt), ("double, pass", dp)]
    level = level_name(f["level"])
    doubling, answer = best_cube_words(nd, dt, dp)
    verdicts = {}
    if f["cube_error"] != NOT_ANALYSED:
        verdicts["cube"] = Verdict(ENGINE, level, doubling, abs(f["cube_error"]), choices)
    if f["take_error"] != NOT_ANALYSED and f["double"] == 1:
        verdicts["take"] = Verdict(ENGINE, level, answer, abs(f["take_error"]), choices)
    return verdicts


# ---------------------------------------------------------------- reading files


def read_xg(data: bytes, file: str = "") -> MatchLog:
    """The match or money session in an .xg file's bytes, with XG's analysis on its actions (Action.analysis)."""
    return _Reader(file).read(records(data, file))


def load_xg(path) -> MatchLog:
    """The .xg file at ``path`` as a MatchLog (``MatchLog.file`` is the path)."""
    return read_xg(_read_bytes(path), str(path))


def read_xgp(data: bytes, file: str = "") -> tuple[np.ndarray, MatchState, str]:
    """The position in an .xgp file's bytes: the board (from the player on roll's side), its match state (cube,
    score, rules; the dice of a checker play) and its variant. The position is the file's last move record
    (a roll to play), else its last cube record (a doubling decision before the roll)."""
    items = records(data, file)
    reader = _Reader(file)
    reader.number = 1
    try:
        reader.match(items[0][1])
    except GammonError as exc:
        raise reader.fail(str(exc)) from None
    games = [fields for kind, fields in items if kind == GAME_HEADER]
    moments = [(number, kind, fields) for number, (kind, fields) in enumerate(items, 1) if kind in (CUBE, MOVE)]
    if not games or not moments:
        raise MatchFileError("the file holds no position (no game header, or no cube or move record)", file)
    reader.number, kind, f = next((m for m in reversed(moments) if m[1] == MOVE), moments[-1])
    log, game = reader.log, games[-1]
    try:
        player = PLAYERS.get(f["player"])
        if player is None:
            raise GammonError(f"the player is {f['player']}: neither 1 nor -1")
        board = _board(f["before"] if kind == MOVE else f["board"], log.variant)
        if not abs(f["cube"]) <= 15:
            raise GammonError(f"a cube of 2 ** {abs(f['cube'])}")
        owner = -1 if f["cube"] == 0 else player if f["cube"] > 0 else 1 - player
        money = not log.length
        state = MatchState(cube=1 << abs(f["cube"]), cube_owner=owner, on_roll=player, turn=player,
                           crawford=game["crawford"] and not money, dice=tuple(f["dice"]) if kind == MOVE else (0, 0),
                           match_length=log.length, score=(game["score1"], game["score2"]),
                           jacoby=log.jacoby and money, beavers=log.beavers and money)
    except GammonError as exc:
        raise reader.fail(str(exc)) from None
    return board, state, log.variant


def load_xgp(path) -> tuple[np.ndarray, MatchState, str]:
    """The .xgp file at ``path``: its position, match state and variant (:func:`read_xgp`)."""
    return read_xgp(_read_bytes(path), str(path))
