"""A standalone SVG picture of one position, for sharing (stdlib only, plus the board helpers).

The board is drawn from the side of the player on roll (the *mover*, ``X``), as gnubg
draws it by default and as :func:`engine.rules.board.render` writes it: points 13..24 along
the top, 12..1 along the bottom, the mover's home board bottom right, the opponent's
(``O``) top right. Borne-off trays sit right of the board (``O`` top, ``X`` bottom), the
bar in the middle holds ``O``'s checkers in its top half and ``X``'s in the bottom half,
as in gnubg's text board. Every checker is drawn where it physically stands, on the
mover's numbering, so one picture serves every variant: in Fevga and Moultezim (the
rotated geometry, ``geometry=ROTATED``) the opponent's home board is the top left
quarter instead, and his pip count is taken along his own track.

With a :class:`engine.records.formats.MatchState` the picture also shows the cube (centered in
the middle left, or at the owner's end of that column; a centered cube at 1 shows 64
as boards do), the dice if rolled (on the mover's half), and the score and match length
or "Money game". A pending double is shown as the offered cube on the board.

Every checker drawn on a point or the bar is a ``<circle class="checker mover">`` or
``<circle class="checker opponent">``; at most 5 are drawn on a point (the top one then
carries the count) and at most 4 per side on the bar (the outermost carries the count).

An Acey-Deucey board (28 cells) also has checkers still to enter. A side with any has borne
none off, so its tray holds them instead: outlined slabs (``class="to-enter mover"``) under
the label "N to enter".
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from gammon.engine.files import atomic_file
from gammon.engine.records.formats import MatchState
from gammon.engine.rules.board import BOARD_SIZE, MAX_CHECKERS, MOVER_BAR, OPP_BAR, checkers_off, pip_counts, validate
from gammon.engine.rules.variants import BOARD_SIZE_UNENTERED, MIRRORED, MOVER_UNENTERED, OPPONENT_UNENTERED, Geometry

__all__ = ["board_svg", "write_board_svg"]

# ---------------------------------------------------------------------------------------
# Geometry (user units; the picture is 800 x 600)
# ---------------------------------------------------------------------------------------

WIDTH, HEIGHT = 800, 600
PW = 46  # point width
R = 20  # checker radius
STEP = 2 * R  # vertical distance between stacked checkers
BAR_W = 48
BORDER = 10
CUBE_COL_X = 24  # left edge of the cube column
CUBE = 44  # cube side
FRAME_X = 82  # outer left edge of the board frame
INNER_L = FRAME_X + BORDER
HALF_W = 6 * PW
BAR_L = INNER_L + HALF_W
RIGHT_L = BAR_L + BAR_W
INNER_R = RIGHT_L + HALF_W
FRAME_R = INNER_R + BORDER
FRAME_Y = 62
INNER_T = FRAME_Y + BORDER
HALF_H = 5 * STEP  # 200: five checkers
MID_GAP = 40
INNER_B = INNER_T + 2 * HALF_H + MID_GAP
FRAME_B = INNER_B + BORDER
MID_Y = (INNER_T + INNER_B) / 2
POINT_LEN = HALF_H - 18
TRAY_L = FRAME_R + 10
TRAY_W = 64
TRAY_R = TRAY_L + TRAY_W
SLAB_W = 48
MAX_SHOWN = 5  # checkers drawn per point
MAX_BAR_SHOWN = 4  # checkers drawn per side on the bar

COLORS = {
    "background": "#f6f3ec",
    "frame": "#5b3a1d",
    "felt": "#ecdfc2",
    "point_a": "#b4533b",
    "point_b": "#3e5e56",
    "text": "#2b2520",
    "number": "#5b4a3a",
    "mover": "#f7f2e4",
    "mover_edge": "#6b5a45",
    "mover_text": "#2b2520",
    "opponent": "#2c2926",
    "opponent_edge": "#8d857b",
    "opponent_text": "#f7f2e4",
    "cube": "#fffdf7",
    "cube_edge": "#3a2e22",
}

FONT = "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"

# Pip positions on a die face, in thirds of its side from the centre.
_DIE_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _n(x: float) -> str:
    """A coordinate without needless decimals."""
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _text(x, y, content, cls, size=12, anchor="middle", weight="normal", fill=None) -> str:
    fill = fill or COLORS["text"]
    return (
        f'<text class="{cls}" x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}">{escape(str(content))}</text>'
    )


def _column_x(col: int) -> float:
    """Centre x of board column 0..11 (left to right)."""
    return INNER_L + col * PW + PW / 2 + (BAR_W if col >= 6 else 0)


def _point_place(point: int) -> tuple[float, bool]:
    """(centre x, on the top row) of mover point 1..24."""
    if point >= 13:
        return _column_x(point - 13), True
    return _column_x(12 - point), False


def _checker(x, y, side: str, label=None) -> list[str]:
    out = [
        f'<circle class="checker {side}" cx="{_n(x)}" cy="{_n(y)}" r="{R - 1}" '
        f'fill="{COLORS[side]}" stroke="{COLORS[side + "_edge"]}" stroke-width="2"/>'
    ]
    if label is not None:
        out.append(_text(x, y + 5, label, f"stack-count {side}", size=15, weight="bold", fill=COLORS[side + "_text"]))
    return out


def _cube(x, y, value, cls="cube") -> list[str]:
    size = 20 if value < 100 else 15 if value < 10000 else 12
    return [
        f'<g class="{cls}"><rect x="{_n(x - CUBE / 2)}" y="{_n(y - CUBE / 2)}" width="{CUBE}" height="{CUBE}" rx="6" '
        f'fill="{COLORS["cube"]}" stroke="{COLORS["cube_edge"]}" stroke-width="2"/>',
        _text(x, y + size * 0.36, value, "cube-value", size=size, weight="bold"),
        "</g>",
    ]


def _die(x, y, value, side: str) -> list[str]:
    s = 36
    fill, edge, pip = COLORS[side], COLORS[side + "_edge"], COLORS[side + "_text"]
    out = [
        f'<rect class="die" x="{_n(x - s / 2)}" y="{_n(y - s / 2)}" width="{s}" height="{s}" rx="6" '
        f'fill="{fill}" stroke="{edge}" stroke-width="2"/>'
    ]
    for dx, dy in _DIE_PIPS[value]:
        out.append(f'<circle class="die-pip" cx="{_n(x + dx * 9)}" cy="{_n(y + dy * 9)}" r="3.6" fill="{pip}"/>')
    return out


def _short(name: str, limit: int = 24) -> str:
    """A player name cut to fit the bottom line."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


def board_svg(board, state=None, checkers: int = MAX_CHECKERS, title=None, names=("X", "O"),
              geometry: Geometry = MIRRORED) -> str:
    """An SVG (string) of ``board`` seen from the player on roll, optionally with its match ``state``.

    ``board`` is the 26-entry engine layout, or Acey-Deucey's 28 (checked with :func:`engine.rules.board.validate`,
    which raises :class:`engine.rules.board.BoardError`); ``state`` an optional
    :class:`engine.records.formats.MatchState` (cube, dice, score); ``title`` an optional line on
    top (a Position ID, say); ``names`` the labels of (player on roll, opponent); ``geometry``
    the variant's (it places the opponent's track for his pip count).
    """
    cells = len(board) if hasattr(board, "__len__") else None  # anything else is validate's to refuse
    size = BOARD_SIZE_UNENTERED if cells == BOARD_SIZE_UNENTERED else BOARD_SIZE
    b = [int(v) for v in validate(board, checkers, size)]
    to_enter_mover, to_enter_opp = (b[MOVER_UNENTERED], b[OPPONENT_UNENTERED]) if size > BOARD_SIZE else (0, 0)
    if state is not None:
        if not isinstance(state, MatchState):
            raise TypeError(f"state must be a MatchState or None; got {type(state).__name__}")
    off_mover, off_opp = (int(v) for v in checkers_off(b, checkers))
    pips_mover, pips_opp = (int(v) for v in pip_counts(b, geometry))
    name_x, name_o = (_short(str(n)) for n in names)

    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family={quoteattr(FONT)}>',
    ]
    label = f"Backgammon position, {name_x} on roll" + (f": {title}" if title else "")
    out.append(f"<title>{escape(label)}</title>")
    out.append(f'<rect class="background" width="{WIDTH}" height="{HEIGHT}" fill="{COLORS["background"]}"/>')
    if title:
        out.append(_text(WIDTH / 2, 30, title, "title", size=18, weight="bold"))

    # Frame, felt, bar.
    out.append(
        f'<rect class="frame" x="{FRAME_X}" y="{FRAME_Y}" width="{FRAME_R - FRAME_X}" height="{FRAME_B - FRAME_Y}" '
        f'rx="4" fill="{COLORS["frame"]}"/>'
    )
    for left in (INNER_L, RIGHT_L):
        out.append(
            f'<rect class="felt" x="{left}" y="{INNER_T}" width="{HALF_W}" height="{INNER_B - INNER_T}" '
            f'fill="{COLORS["felt"]}"/>'
        )
    out.append(
        f'<rect class="bar" x="{BAR_L}" y="{INNER_T}" width="{BAR_W}" height="{INNER_B - INNER_T}" '
        f'fill="{COLORS["frame"]}"/>'
    )

    # Points and their numbers.
    for col in range(12):
        x = _column_x(col)
        for top in (True, False):
            point = 13 + col if top else 12 - col
            colour = COLORS["point_a"] if (col + (0 if top else 1)) % 2 == 0 else COLORS["point_b"]
            base = INNER_T if top else INNER_B
            tip = base + POINT_LEN if top else base - POINT_LEN
            out.append(
                f'<polygon class="point" data-point="{point}" points="{_n(x - PW / 2 + 1)},{base} '
                f'{_n(x + PW / 2 - 1)},{base} {_n(x)},{tip}" fill="{colour}"/>'
            )
            y = FRAME_Y - 8 if top else FRAME_B + 16
            out.append(_text(x, y, point, "point-number", size=12, fill=COLORS["number"]))

    # Checkers on the points.
    for point in range(1, 25):
        n = b[point]
        if not n:
            continue
        side = "mover" if n > 0 else "opponent"
        count = abs(n)
        x, top = _point_place(point)
        shown = min(count, MAX_SHOWN)
        for i in range(shown):
            y = INNER_T + R + i * STEP if top else INNER_B - R - i * STEP
            label = count if (count > MAX_SHOWN and i == shown - 1) else None
            out.extend(_checker(x, y, side, label))

    # Checkers on the bar: the opponent's in the top half, the mover's in the bottom half,
    # stacked out from the middle; the outermost one carries the count.
    bar_x = BAR_L + BAR_W / 2
    for side, count, direction in (("opponent", b[OPP_BAR], -1), ("mover", b[MOVER_BAR], 1)):
        shown = min(count, MAX_BAR_SHOWN)
        for i in range(shown):
            y = MID_Y + direction * (R + 4 + i * STEP)
            out.extend(
                _checker(bar_x, y, side)
                if i < shown - 1
                else [
                    *_checker(bar_x, y, side),
                    _text(bar_x, y + 5, count, f"bar-count {side}", size=15, weight="bold",
                          fill=COLORS[side + "_text"]),
                ]
            )

    # Borne-off trays: the opponent's top, the mover's bottom, with counts outside.
    out.append(
        f'<rect class="tray" x="{TRAY_L}" y="{FRAME_Y}" width="{TRAY_W}" height="{FRAME_B - FRAME_Y}" '
        f'rx="4" fill="{COLORS["frame"]}"/>'
    )
    slab_step = min(12.0, (HALF_H - 10) / max(checkers, 1))
    slab_h = max(slab_step - 2, 1.5)
    slab_x = TRAY_L + (TRAY_W - SLAB_W) / 2
    for side, off, to_enter, top in (("opponent", off_opp, to_enter_opp, True),
                                     ("mover", off_mover, to_enter_mover, False)):
        y0 = INNER_T if top else MID_Y + MID_GAP / 2
        out.append(
            f'<rect class="tray-felt" x="{_n(slab_x - 2)}" y="{_n(y0)}" width="{SLAB_W + 4}" height="{HALF_H}" '
            f'fill="{COLORS["felt"]}"/>'
        )
        # Checkers still to enter wait in the tray, outlined (their side has borne none off).
        kind, count, fill = ("to-enter", to_enter, "none") if to_enter else ("off", off, COLORS[side])
        for i in range(count):
            y = INNER_T + 4 + i * slab_step if top else INNER_B - 4 - slab_h - i * slab_step
            out.append(
                f'<rect class="{kind} {side}" x="{_n(slab_x)}" y="{_n(y)}" width="{SLAB_W}" height="{_n(slab_h)}" '
                f'rx="2" fill="{fill}" stroke="{COLORS[side + "_edge"]}" stroke-width="1"/>'
            )
        y = FRAME_Y - 8 if top else FRAME_B + 16
        words = f"{to_enter} to enter" if to_enter else f"{off} off"
        out.append(_text(TRAY_L + TRAY_W / 2, y, words, f"{kind}-count {side}", size=12, weight="bold"))

    # Match state: cube, dice, score.
    score_line = None
    if state is not None:
        mover_player = state.on_roll
        cube_x = CUBE_COL_X + CUBE / 2 + 3
        if state.doubled:
            offered = state.cube * 2
            x = RIGHT_L + HALF_W / 2
            out.extend(_cube(x, MID_Y, offered, cls="cube offered"))
            out.append(_text(x + CUBE / 2 + 8, MID_Y + 5, "doubles", "cube-note", size=13, anchor="start",
                             weight="bold"))
        else:
            if state.cube_owner < 0:
                y = MID_Y
            elif state.cube_owner == mover_player:
                y = INNER_B - CUBE / 2
            else:
                y = INNER_T + CUBE / 2
            value = 64 if (state.cube == 1 and state.cube_owner < 0) else state.cube
            out.extend(_cube(cube_x, y, value))
        if state.dice[0]:
            d1, d2 = state.dice
            x = RIGHT_L + HALF_W / 2
            out.append(f'<g class="dice" data-dice="{d1}{d2}"><title>Dice {d1}-{d2}</title>')
            out.extend(_die(x - 24, MID_Y, d1, "mover"))
            out.extend(_die(x + 24, MID_Y, d2, "mover"))
            out.append("</g>")
        if state.match_length:
            mine, theirs = state.score[mover_player], state.score[1 - mover_player]
            score_line = (f"{state.match_length}-point match · score {name_x} {mine}, {name_o} {theirs}"
                          + (" · Crawford" if state.crawford else ""))
        else:
            score_line = "Money game"

    # Bottom lines: swatches and pip counts, then the score in the middle.
    y = HEIGHT - 34
    sw = (
        '<circle class="swatch {side}" cx="{x}" cy="{y}" r="8" fill="{fill}" stroke="{edge}" stroke-width="1.5"/>'
    )
    out.append(sw.format(side="mover", x=FRAME_X + 8, y=y - 5, fill=COLORS["mover"], edge=COLORS["mover_edge"]))
    out.append(_text(FRAME_X + 22, y, f"{name_x} (on roll) · pips {pips_mover}", "pips mover", size=14,
                     anchor="start"))
    out.append(sw.format(side="opponent", x=TRAY_R - 8, y=y - 5, fill=COLORS["opponent"],
                         edge=COLORS["opponent_edge"]))
    out.append(_text(TRAY_R - 22, y, f"{name_o} · pips {pips_opp}", "pips opponent", size=14, anchor="end"))
    if score_line:
        out.append(_text((FRAME_X + TRAY_R) / 2, HEIGHT - 10, score_line, "score", size=14, weight="bold"))

    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_board_svg(path, board, state=None, checkers: int = MAX_CHECKERS, title=None, names=("X", "O"),
                    geometry: Geometry = MIRRORED) -> str:
    """Write :func:`board_svg` to ``path`` whole or not at all (engine/files.py).

    The picture is built before anything is written, so a bad board leaves no file.
    Returns the SVG text.
    """
    text = board_svg(board, state, checkers=checkers, title=title, names=names, geometry=geometry)
    with atomic_file(path, "w", make_folders=False) as f:  # a missing folder is the user's to make
        f.write(text)
    return text
