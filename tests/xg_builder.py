"""eXtreme Gammon files written byte by byte for the tests, from our reading of the layout XG's authors
published (the "XG file format" page of extremegammon.com, version 30 of the format).

The offsets here are written out again, on purpose, rather than taken from engine/records/xg.py: this
builder is the tests' own reading of the format, the reader's is another, and the independent reader
(ankigammon's xgdatatools, tests/test_xg.py) checks both. Only what the tests need is filled in; every
other byte is zero, as XG's format asks of unused bytes.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from gammon.engine.records.matchlog import MatchLog
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.notation import find_play, legal_plays

RECORD = 2560
HEADER = 8232
NOT_ANALYSED = -1000.0
MONEY = 99999
TYPES = {"match": 0, "game": 1, "cube": 2, "move": 3, "game footer": 4, "match footer": 5}
PLAYER = {0: 1, 1: -1}  # our player -> XG's code


def _record(kind: str) -> bytearray:
    record = bytearray(RECORD)
    record[8] = TYPES[kind]
    return record


def _short_string(text: str, size: int) -> bytes:
    raw = text.encode("cp1252")[: size - 1]
    return bytes([len(raw)]) + raw.ljust(size - 1, b"\0")


def _wide(text: str, chars: int) -> bytes:
    return text.encode("utf-16-le")[: 2 * (chars - 1)].ljust(2 * chars, b"\0")


def xg_cells(board) -> bytes:
    """Our board as XG's PositionEngine: 26 signed bytes, the opponent's bar negative."""
    cells = np.array(board, dtype=np.int8)
    cells[0] = -cells[0]
    return cells.tobytes()


def match_header(players=("alice", "bob"), length=5, variation=0, crawford=True, jacoby=False, beaver=False,
                 days=45000.0, event="", location="", round_="", version=30, ansi_names=None) -> bytes:
    r = _record("match")
    ansi = ansi_names or players
    r[9:50], r[50:91] = _short_string(ansi[0], 41), _short_string(ansi[1], 41)
    struct.pack_into("<ii????", r, 92, MONEY if length == 0 else length, variation, crawford, jacoby, beaver, False)
    struct.pack_into("<d", r, 128, days)
    r[136:265], r[283:412], r[417:546] = (_short_string(t, 129) for t in (event, location, round_))
    struct.pack_into("<ii4s", r, 548, 0, version, b"DMLI")
    struct.pack_into("<ii", r, 576, -1, -1)  # no match comments
    if version >= 24:
        for offset, text in zip((622, 880, 1138, 1396, 1654), (event, *players, location, round_)):
            r[offset:offset + 258] = _wide(text, 129)
    return bytes(r)


def game_header(number: int, score=(0, 0), crawford=False, start=None, auto_doubles=0) -> bytes:
    r = _record("game")
    struct.pack_into("<ii?", r, 12, score[0], score[1], crawford)
    r[21:47] = xg_cells(starting_board() if start is None else start)
    struct.pack_into("<i?", r, 48, number, False)
    struct.pack_into("<iii", r, 56, -1, -1, auto_doubles)
    return bytes(r)


def cube_record(player: int, board, double=0, take=-1, beaver=-1, cube=0, equities=None, cube_error=NOT_ANALYSED,
                take_error=NOT_ANALYSED, level=-1, dice="") -> bytes:
    """``equities``: XG's (no double, double/take, double/pass) for the player on roll; ``cube``: XG's CubeB."""
    r = _record("cube")
    struct.pack_into("<iiiiii", r, 12, PLAYER[player], double, take, beaver, -1, cube)
    r[36:62] = xg_cells(board)
    r[64:90] = xg_cells(board)  # the analysis' own copy of the position
    struct.pack_into("<hh", r, 118, 0, -100 if equities is None else 0)  # met, FlagDouble
    if equities is not None:
        struct.pack_into("<fff", r, 152, *equities)
    struct.pack_into("<d", r, 200, cube_error)
    r[208:211] = _short_string(dice, 3)
    struct.pack_into("<diii", r, 216, take_error, -1, 0, level)
    struct.pack_into("<ddi", r, 240, NOT_ANALYSED, NOT_ANALYSED, level)
    struct.pack_into("<i", r, 292, -1)  # no comment
    return bytes(r)


def move_record(player: int, before, after, steps, dice, cube=0, candidates=(), error=NOT_ANALYSED, level=-1,
                off=-2) -> bytes:
    """``steps`` in our numbering (bar 25, off 0); ``candidates``: (steps, board after, equity), XG's order."""
    r = _record("move")
    r[9:35], r[35:61] = xg_cells(before), xg_cells(after)
    struct.pack_into("<i8i2iidi", r, 64, PLAYER[player], *xg_pairs(steps, off), *dice, cube, 0.0, len(candidates))
    data = 124  # DataMoves, XG's analysis of the candidates
    r[data:data + 26] = xg_cells(before)
    struct.pack_into("<2iii", r, data + 28, *dice, level, 0)
    struct.pack_into("<i", r, data + 64, len(candidates))
    for i, (candidate, result, equity) in enumerate(candidates):
        r[data + 68 + 26 * i:data + 94 + 26 * i] = xg_cells(result)
        r[data + 900 + 8 * i:data + 908 + 8 * i] = struct.pack("<8b", *xg_pairs(candidate, off))
        struct.pack_into("<hBB", r, data + 1156 + 4 * i, max(level, 0), 0, 0)
        struct.pack_into("<7f", r, data + 1284 + 28 * i, 0, 0.1, 0.5, 0.5, 0.1, 0, equity)
    struct.pack_into("<?", r, 2308, True)
    struct.pack_into("<ddi", r, 2312, error, 0.0, 0)
    struct.pack_into("<32iiii", r, 2344, *[-1] * 32, level, level, 0)
    struct.pack_into("<i", r, 2524, -1)  # no comment
    return bytes(r)


def xg_pairs(steps, off=-2) -> list[int]:
    """Our steps as XG's eight (from, to) numbers: points less one, the bar 24, off ``off``; -1 ends them."""
    pairs = []
    for start, end in steps:
        pairs += [start - 1, end - 1 if end else off]
    return (pairs + [-1] * 8)[:8]


def game_footer(winner: int, points: int, termination: int) -> bytes:
    r = _record("game footer")
    struct.pack_into("<iii", r, 24, PLAYER[winner], points, termination)
    struct.pack_into("<dd", r, 40, NOT_ANALYSED, NOT_ANALYSED)
    return bytes(r)


def match_footer() -> bytes:
    return bytes(_record("match footer"))


# ---------------------------------------------------------------- the container


def container(files: dict[str, bytes], compress=True, pack_index=True, thumbnail=b"", claims=None) -> bytes:
    """The RGMH header, a thumbnail, then the archive: each file (zlib or stored), the index, the trailer;
    ``claims`` gives a file's size as its index entry says it (else its true size)."""
    header = bytearray(HEADER)
    header[:4] = b"RGMH"
    struct.pack_into("<IIqI", header, 4, 1, HEADER, 0, len(thumbnail))
    header[40:40 + 2048] = _wide("Test Game", 1024)
    body, index = b"", b""
    for name, content in files.items():
        stored = zlib.compress(content) if compress else content
        size = (claims or {}).get(name, len(content))
        index += struct.pack("<256s256siiiIBBxx", _short_string(name, 256), b"\0", size, len(stored), len(body),
                             zlib.crc32(content), 0 if compress else 1, 6 if compress else 0)
        body += stored
    index = zlib.compress(index) if pack_index else index
    archive = body + index
    trailer = struct.pack("<IiiiiI12x", zlib.crc32(archive), len(files), 1, len(index), len(body), pack_index)
    return bytes(header) + thumbnail + archive + trailer


def xg_file(records: list[bytes], **options) -> bytes:
    """An .xg file of ``records`` (temp.xg), with the small temp.xgi XG writes beside it."""
    return container({"temp.xgi": records[0] + records[-1], "temp.xg": b"".join(records)}, **options)


# ---------------------------------------------------------------- a MatchLog of ours as XG's records


def log_records(log: MatchLog, analyse=None, analyse_cube=None, version=30) -> list[bytes]:
    """The records XG would write for ``log`` (legal moves, our notation): a cube record before every roll
    (double -2 before the opening roll, 0 or 1 later), each double's answers in it, a move record per roll,
    a footer per finished game. ``analyse(board, dice, plays, played)`` may give a move's XG analysis as
    (candidates, error, level), ``analyse_cube(player, board, double)`` a cube record's as cube_record's
    keyword arguments."""
    records = [match_header(log.players, log.length, crawford=log.crawford, jacoby=log.jacoby, beaver=log.beavers,
                            event=log.event, location=log.place, version=version)]
    for game in log.games:
        records.append(game_header(game.number, game.score, game.crawford))
        records += _game_records(game, analyse, analyse_cube or (lambda player, board, double: {}))
        if game.winner is not None:
            resigned = [a.value for a, b in zip(game.actions, game.actions[1:])
                        if (a.kind, b.kind) == ("resign", "accept")]
            dropped = any(a.kind == "drop" for a in game.actions)
            cube = max([game.cube] + [a.value for a in game.actions if a.kind in ("take", "beaver")])
            records.append(game_footer(game.winner, game.points, 100 + resigned[-1] if resigned else 0 if dropped
                                       else game.points // cube))
    return records + ([match_footer()] if log.games and log.games[-1].winner is not None else [])


TAKE = {"take": 1, "drop": 0, "beaver": 2}
BEAVER = {"take": 1, "drop": 0}


def _game_records(game, analyse, analyse_cube) -> list[bytes]:
    board, records, moves, decided = starting_board(), [], 0, False
    actions = [a for a in game.actions if a.kind not in ("resign", "accept", "reject")]
    for i, action in enumerate(actions):
        if action.kind == "double":
            rest = actions[i + 1:i + 3]
            take = TAKE.get(rest[0].kind, -1) if rest else -1
            beaver = (BEAVER.get(rest[1].kind, -1) if take == 2 and len(rest) > 1 and rest[1].player == action.player
                      else -1)
            records.append(cube_record(action.player, board, 1, take, beaver, **analyse_cube(action.player, board, 1)))
            decided = True
        elif action.kind == "move":
            if not decided:
                double = -2 if moves == 0 else 0
                records.append(cube_record(action.player, board, double, **analyse_cube(action.player, board, double)))
            play = find_play(board, action.dice, action.move)
            candidates, error, level = (), NOT_ANALYSED, -1
            if analyse is not None:
                candidates, error, level = analyse(board, action.dice, legal_plays(board, action.dice), play)
            records.append(move_record(action.player, board, play.board, play_steps(play), action.dice,
                                       candidates=candidates, error=error, level=level))
            board, moves, decided = flip(play.board), moves + 1, False
    return records


def play_steps(play) -> list[tuple[int, int]]:
    """A legal play's steps, without the generator's (-1, -1) padding."""
    return [(int(s), int(t)) for s, t in play.steps.reshape(-1, 2) if s > 0]


def xgp_file(board, player=0, dice=None, cube=0, score=(0, 0), length=7, crawford=False, jacoby=False, beaver=False,
             variation=0) -> bytes:
    """An .xgp position: ``board`` from ``player``'s side (on roll), XG's signed log2 ``cube`` (+ owned by the
    player on roll), the score; a cube record, and with ``dice`` a move record (a checker play to make)."""
    records = [match_header(length=length, variation=variation, crawford=crawford, jacoby=jacoby, beaver=beaver),
               game_header(1, score, crawford, start=board),
               cube_record(player, board, 0, cube=cube)]
    if dice:
        records.append(move_record(player, board, board, [], dice, cube=cube))
    return container({"temp.xg": b"".join(records)})
