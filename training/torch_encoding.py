"""The default nets' input encodings in torch, on any device: models/encoding.py's, column for column.

:mod:`models.encoding` and :mod:`models.features` compute the inputs in numpy on the host;
this module computes the same float32 rows from a tensor of boards where the boards already
are (CPU or CUDA), so that a self-play ply can stay on the device. Every function states
the numpy function it follows; ``tests/test_torch_encoding.py`` checks them against numpy
(allclose) on positions of every family of ``tests/positions.py``. Boards are in the layout
of :mod:`engine.rules.board` on backgammon's board (mirrored tracks), the player on roll positive.

No Python loop runs over positions; the loops left are over the 21 rolls' shapes (dice
pairs, doubles) folded into tensor dimensions, and over the four steps of a double.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

import torch

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import CONTACT, CRASHED, MAX_CHECKERS, RACE
from gammon.engine.rules.dice import ROLLS
from gammon.models.encoding import ENCODINGS as numpy_encodings
from gammon.models.features import BACKBONE_SUPPORT, escape_table

_REVERSE12 = [int(f"{m:012b}"[::-1], 2) for m in range(4096)]  # bit j -> bit 11 - j
_CROSSINGS = [0] * 6 + [1] * 6 + [2] * 6 + [3] * 6 + [4]  # points 1..24 by quadrant, then the bar


@dataclass(frozen=True)
class _Tables:
    """Constants of the features, made once per device."""

    escapes: torch.Tensor  # (4096,) float32: models.features.escape_table
    reverse12: torch.Tensor  # (4096,) int64: a 12-bit mask read backwards
    point_bits: torch.Tensor  # (25,) int64: 1 << p for points 0..24
    points: torch.Tensor  # (26,) int64: 0..25
    crossings: torch.Tensor  # (25,) float32: quadrant crossings from points 1..24 and the bar
    double_dice: torch.Tensor  # (6,) int64: the die of each double
    single_dice: torch.Tensor  # (15, 2) int64: the two dice of each non-double roll
    support: torch.Tensor  # (25,) float64: models.features.BACKBONE_SUPPORT, a held point's support by its distance


@cache
def _tables(device: torch.device) -> _Tables:
    doubles = [a for a, b in ROLLS.tolist() if a == b]
    singles = [(a, b) for a, b in ROLLS.tolist() if a != b]
    return _Tables(
        escapes=torch.tensor(escape_table(), dtype=torch.float32, device=device),
        reverse12=torch.tensor(_REVERSE12, dtype=torch.int64, device=device),
        point_bits=torch.ones(25, dtype=torch.int64, device=device) << torch.arange(25, device=device),
        points=torch.arange(26, device=device),
        crossings=torch.tensor(_CROSSINGS, dtype=torch.float32, device=device),
        double_dice=torch.tensor(doubles, device=device),
        single_dice=torch.tensor(singles, device=device),
        support=torch.tensor(BACKBONE_SUPPORT, dtype=torch.float64, device=device),
    )


def flip(boards: torch.Tensor) -> torch.Tensor:
    """engine.rules.board.flip: the same position seen from the other side (mirrored tracks)."""
    flipped = boards.flip(1)  # the bars swap sides, point p becomes 25 - p
    return torch.cat([flipped[:, :1], -flipped[:, 1:25], flipped[:, 25:]], dim=1)


@dataclass
class Sides:
    """models.features.Sides: both sides' checkers by the mover's point number.

    ``mine[:, p]``: mover checkers on point p (1..24), its bar at 25, 0 at 0.
    ``theirs[:, p]``: opponent checkers on mover point p (1..24), its bar at 0, 0 at 25.
    """

    mine: torch.Tensor  # (N, 26) int32
    theirs: torch.Tensor  # (N, 26) int32
    tables: _Tables

    @classmethod
    def of(cls, boards: torch.Tensor) -> Sides:
        b = boards.to(torch.int32)
        mine = b.clamp(min=0)
        mine[:, 0] = 0
        theirs = (-b).clamp(min=0)
        theirs[:, 0] = b[:, 0]
        return cls(mine, theirs, _tables(boards.device))

    def __len__(self) -> int:
        return len(self.mine)

    def bits(self, flags: torch.Tensor) -> torch.Tensor:
        """(N, 25) booleans, index = point 0..24 -> one int64 bit mask per board (bit p = point p)."""
        return (flags.to(torch.int64) * self.tables.point_bits).sum(1)

    @cached_property
    def escapes(self) -> torch.Tensor:
        """(N, 25) rolls out of 36 that let a mover checker on point 1..25 (25 = bar) escape."""
        return self.tables.escapes[block_masks(self)]

    @cached_property
    def shot_masks(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """models.features.Sides.shot_masks: (N, 1) masks of the mover's blots, the points open to the
        opponent, and where its hitters start (bit 0 = its bar; only the bar while it has checkers there)."""
        blot = self.bits(self.mine[:, :25] == 1)[:, None]
        open_ = self.bits(self.mine[:, :25] < 2)[:, None]
        on_bar = self.theirs[:, 0] > 0
        hitter = torch.where(on_bar, 1, self.bits(self.theirs[:, :25] > 0))[:, None]
        return blot, open_, hitter

    @cached_property
    def double_steps(self) -> tuple[torch.Tensor, ...]:
        """models.features.Sides.double_steps: (N, 6) masks of the points the opponent's checkers reach with
        1, 2, 3 and 4 steps of each double, every landing before the last open."""
        _, open_, hitter = self.shot_masks
        steps = [(hitter << self.tables.double_dice).expand(len(self), 6)]
        for _ in range(3):
            steps.append((steps[-1] & open_) << self.tables.double_dice)
        return tuple(steps)

    @cached_property
    def hits(self) -> torch.Tensor:
        """models.features.Sides.hits: (N, 21) masks of the blots each roll hits (:func:`_hits`)."""
        return _hits(self)

    @cached_property
    def rear(self) -> torch.Tensor:
        """models.features.Sides.rear: the mover's point of its rearmost checker (25 = its bar, 0 = none left)."""
        occupied = self.mine[:, 1:26] > 0
        return torch.where(occupied.any(1), 25 - _first(occupied.flip(1)), 0)

    @cached_property
    def opponent_rear(self) -> torch.Tensor:
        """The mover's point of the opponent's rearmost checker (0 = on its bar, 25 = none left)."""
        present = self.theirs[:, :25] > 0
        return torch.where(present.any(1), _first(present), 25)


def _first(flags: torch.Tensor) -> torch.Tensor:
    """Column of the first true flag of each row (0 when none: callers test ``any`` first)."""
    return torch.argmax(flags.to(torch.uint8), dim=1)  # argmax returns the first maximum


def _hits(s: Sides) -> torch.Tensor:
    """models.features.Sides.hits: (N, 21) masks of the blots each roll hits, the 15 non-doubles then the doubles.

    Every roll at once: the non-doubles as 15 columns (one die, the other, or both with an
    open landing between), the doubles as 6 columns stepped four times over open points.
    """
    t = s.tables
    blot, open_, hitter = s.shot_masks
    d1, d2 = t.single_dice[:, 0], t.single_dice[:, 1]
    landed = ((hitter << d1) & open_) << d2 | ((hitter << d2) & open_) << d1
    single_hits = ((hitter << d1) | (hitter << d2) | landed) & blot
    first, second, third, fourth = s.double_steps
    return torch.cat([single_hits, (first | second | third | fourth) & blot], dim=1)


def _roll_chance(flags: torch.Tensor) -> torch.Tensor:
    """(N, 21) per-roll values (columns as :func:`_hits`) weighed by each roll's chance and summed."""
    return flags[:, :15].sum(1) * (2 / 36) + flags[:, 15:].sum(1) / 36


def _popcount(masks: torch.Tensor) -> torch.Tensor:
    """Set bits of each int64 mask below bit 32 (torch has no popcount)."""
    x = masks - ((masks >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return (x * 0x01010101 & 0xFFFFFFFF) >> 24


def hit_chance(s: Sides) -> torch.Tensor:
    """models.features.hit_chance: chance that the opponent's next roll hits a mover blot."""
    return _roll_chance((s.hits != 0).to(torch.float64)).to(torch.float32)


def pip_loss(s: Sides) -> torch.Tensor:
    """models.features.pip_loss: pips lost to the costliest blot each opponent roll hits, on average, / 25."""
    hits = s.hits
    lowest = hits & -hits
    lost = torch.where(hits != 0, 25 - torch.log2(lowest.clamp(min=1).to(torch.float64)), 0)
    return (_roll_chance(lost) / 25).to(torch.float32)


def double_hit_chance(s: Sides) -> torch.Tensor:
    """models.features.double_hit_chance: chance that the opponent's next roll hits two mover blots."""
    t = s.tables
    blot, open_, hitter = s.shot_masks
    d1, d2 = t.single_dice[:, 0], t.single_dice[:, 1]
    by_first, by_second = (hitter << d1) & blot, (hitter << d2) & blot
    apart = (by_first != 0) & (by_second != 0) & (_popcount(by_first | by_second) >= 2)
    chained = (((by_first << d2) | (by_second << d1)) & blot) != 0
    steps = s.double_steps
    through = torch.zeros_like(steps[0])
    chained_double = torch.zeros(steps[0].shape, dtype=torch.bool, device=blot.device)
    for before in steps[:3]:
        through = ((through & open_) | (before & blot)) << t.double_dice
        chained_double = chained_double | ((through & blot) != 0)
    first, seen = [], torch.zeros_like(steps[0])  # blots first reached at steps 1, 2 and 3
    for reach in steps[:3]:
        first.append(_popcount(reach & blot & ~seen))
        seen = seen | (reach & blot)
    n1, n2, n3 = first
    apart_double = (n1 >= 2) | (n2 >= 2) | ((n1 >= 1) & (n2 + n3 >= 1))
    flags = torch.cat([apart | chained, apart_double | chained_double], dim=1).to(torch.float64)
    return _roll_chance(flags).to(torch.float32)


def block_masks(s: Sides) -> torch.Tensor:
    """models.features.block_masks: (N, 25) escape-table masks of the 12 points ahead of points 1..25."""
    blocked = (s.bits(s.theirs[:, :25] >= 2) & ~1) << 12  # bit 12 + p = point p (its bar is no block)
    ahead = (blocked[:, None] >> s.tables.points[1:26]) & 0xFFF  # bit j = point p - 12 + j
    return s.tables.reverse12[ahead]


def rear_escape(s: Sides) -> torch.Tensor:
    """models.features.rear_escape: escapes / 36 of the mover's rearmost checker; 1 when none is left."""
    escapes = s.escapes.gather(1, (s.rear - 1).clamp(min=0)[:, None]).squeeze(1) / 36
    return torch.where(s.rear > 0, escapes, 1.0)


def containment(s: Sides) -> torch.Tensor:
    """models.features.containment: 1 - the fewest escapes from points 15..24, / 36."""
    return 1 - s.escapes[:, 14:24].min(1).values / 36


def outfield_escapes(s: Sides) -> torch.Tensor:
    """models.features.outfield_escapes: escapes times distance from home over checkers on 7..25, / 3600."""
    return (s.mine[:, 7:26] * s.escapes[:, 6:25] * s.tables.points[1:20]).sum(1) / 3600


def back_moment(s: Sides) -> torch.Tensor:
    """models.features.back_moment: mean squared lead over the mean point of the checkers above it, / 400."""
    mine = s.mine[:, 1:26].to(torch.float64)
    points = s.tables.points[1:26].to(torch.float64)
    mean = (mine * points).sum(1) / mine.sum(1).clamp(min=1)
    trailing = torch.where(points > mean[:, None], mine, 0)
    spread = (trailing * (points - mean[:, None]) ** 2).sum(1)
    return spread / trailing.sum(1).clamp(min=1) / 400


def active_containment(s: Sides) -> torch.Tensor:
    """models.features.active_containment: 1 - the fewest escapes / 36 from points 15 up to the rearmost checker."""
    from_rear = s.tables.points[None, 15:26] <= s.rear[:, None]
    fewest = torch.where(from_rear, s.escapes[:, 14:25], 36.0).min(1).values
    return 1 - fewest / 36


def free_pips(s: Sides) -> torch.Tensor:
    """models.features.free_pips: pips of the checkers below the opponent's rearmost one, / 100."""
    passed = s.tables.points[None, 1:25] < s.opponent_rear[:, None]
    return (s.mine[:, 1:25] * passed * s.tables.points[1:25]).sum(1) / 100


def back_game(s: Sides) -> torch.Tensor:
    """models.features.back_game: (N, 2) (checkers on 19..25 - 3) / 4 with 2+ points held on 19..24, / 8 with one."""
    held = (s.mine[:, 19:25] >= 2).sum(1)
    back = s.mine[:, 19:26].sum(1)
    return torch.stack([torch.where(held >= 2, (back - 3) / 4, 0.0), torch.where(held == 1, back / 8, 0.0)], dim=1)


def backbone(s: Sides) -> torch.Tensor:
    """models.features.backbone: 1 - the mean support / 11 of the points held in front of the rearmost held one."""
    held = s.mine[:, 1:25] >= 2
    rear = torch.where(held.any(1), 24 - _first(held.flip(1)), 0)
    distance = (rear[:, None] - s.tables.points[None, 1:25]).clamp(0, 24)
    others = held & (distance > 0)
    count = others.sum(1)
    support = (others * s.tables.support[distance]).sum(1)
    return torch.where(count > 0, 1 - support / (11 * count.clamp(min=1)), 0.0)


def _longest_run(held: torch.Tensor) -> torch.Tensor:
    """Longest run of true flags in each row: each column's run starts after the last false before it."""
    columns = torch.arange(held.shape[1], device=held.device)
    last_gap = torch.where(held, -1, columns).cummax(1).values
    return (columns - last_gap).max(1).values


def primes(s: Sides) -> torch.Tensor:
    """models.features.primes: (N, 2) longest held run, and the longest in front of the opponent's rear, / 6."""
    held = s.mine[:, 1:25] >= 2
    ahead = s.tables.points[None, 1:25] > s.opponent_rear[:, None]
    return torch.stack([_longest_run(held), _longest_run(held & ahead)], dim=1) / 6


def anchors(s: Sides) -> torch.Tensor:
    """models.features.anchors: (N, 2) points held in the opponent's home board / 3, the most forward (25 - p) / 6."""
    held = s.mine[:, 19:25] >= 2
    forward = torch.where(held.any(1), 6 - _first(held), 0)
    return torch.stack([held.sum(1) / 3, forward / 6], dim=1)


def mobility(s: Sides) -> torch.Tensor:
    """models.features.mobility: checker-moves to open points with each die 1..6, / 90."""
    cum = torch.zeros((len(s), 31), dtype=torch.int64, device=s.mine.device)
    cum[:, 7:31] = torch.cumsum(s.theirs[:, 1:25] < 2, dim=1)  # open points among 1..p at column 6 + p
    return (s.mine[:, 1:26] * (cum[:, 6:31] - cum[:, 0:25])).sum(1) / 90


def timing(s: Sides) -> torch.Tensor:
    """models.features.timing: pips to play before breaking the home board, (p - 6) over points 7..25, / 100."""
    return (s.mine[:, 7:26] * s.tables.points[1:20]).sum(1) / 100


def break_contact(s: Sides) -> torch.Tensor:
    """models.features.break_contact: pips to bring every checker past the opponent's rearmost, / 100."""
    distance = (s.tables.points[None, 1:26] - s.opponent_rear[:, None] + 1).clamp(min=0)
    return (s.mine[:, 1:26] * distance).sum(1) / 100


def entry(s: Sides) -> torch.Tensor:
    """models.features.entry: (N, 2) opponent home points closed / 6, and that squared."""
    closed = (s.theirs[:, 19:25] >= 2).sum(1) / 6
    return torch.stack([closed, closed**2], dim=1)


def home_points(s: Sides) -> torch.Tensor:
    """models.features.home_points: mover points made in its home board / 6."""
    return (s.mine[:, 1:7] >= 2).sum(1) / 6


def back_count(s: Sides) -> torch.Tensor:
    """models.features.back_count: mover checkers on points 19..25 / 15."""
    return s.mine[:, 19:26].sum(1) / 15


def crossovers(s: Sides) -> torch.Tensor:
    """models.features.crossovers: quadrant crossings still to make / 30."""
    return (s.mine[:, 1:26] * s.tables.crossings).sum(1) / 30


def home_distribution(s: Sides) -> torch.Tensor:
    """models.features.home_distribution: (N, 2) checkers on points 1..3 / 15, empty points among 4..6 / 3."""
    return torch.stack([s.mine[:, 1:4].sum(1) / 15, (s.mine[:, 4:7] == 0).sum(1) / 3], dim=1)


def _columns(parts: list[torch.Tensor]) -> torch.Tensor:
    """Feature vectors and (N, k) blocks side by side, as float32 columns.

    Stacked as rows and turned round: writing whole rows is much faster than columns.
    """
    rows = [row for p in parts for row in (p.T if p.dim() == 2 else [p])]
    return torch.stack(rows).to(torch.float32).T


def contact_features(boards: torch.Tensor | Sides) -> torch.Tensor:
    """models.features.contact_features: (N, 14) of the mover's side, in the order of CONTACT_NAMES."""
    s = boards if isinstance(boards, Sides) else Sides.of(boards)
    return _columns([hit_chance(s), rear_escape(s), containment(s), primes(s), anchors(s), mobility(s),
                     timing(s), break_contact(s), entry(s), home_points(s), back_count(s)])


def contact_extra_features(boards: torch.Tensor | Sides) -> torch.Tensor:
    """models.features.contact_extra_features: (N, 4) in the order of CONTACT_EXTRA_NAMES."""
    s = boards if isinstance(boards, Sides) else Sides.of(boards)
    return _columns([pip_loss(s), double_hit_chance(s), outfield_escapes(s), back_moment(s)])


def contact_v3_features(boards: torch.Tensor | Sides) -> torch.Tensor:
    """models.features.contact_v3_features: (N, 5) in the order of CONTACT_V3_NAMES."""
    s = boards if isinstance(boards, Sides) else Sides.of(boards)
    return _columns([active_containment(s), free_pips(s), back_game(s), backbone(s)])


def race_features(boards: torch.Tensor) -> torch.Tensor:
    """models.features.race_features: (N, 3) crossovers, then the two home-distribution cues."""
    s = Sides.of(boards)
    return _columns([crossovers(s), home_distribution(s)])


def _own_counts(boards: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """engine.rules.board.mover_counts and opponent_counts: (N, 25) each in its own numbering, bar last."""
    b = boards.to(torch.int64)
    mine = b[:, 1:26].clamp(min=0)
    theirs = torch.cat([(-b[:, 1:25]).clamp(min=0).flip(1), b[:, :1]], dim=1)  # its point q is our 25 - q
    return mine, theirs


def _point_units(counts: torch.Tensor) -> torch.Tensor:
    """models.encoding._point_units: (N, 24) counts -> (N, 96) Tesauro units, four per point:
    n >= 1, n >= 2, n >= 3, (n - 3) / 2 for n > 3."""
    n = counts.to(torch.float32)
    return torch.stack([n.clamp(max=1), (n - 1).clamp(0, 1), (n - 2).clamp(0, 1), (n - 3).clamp(min=0) / 2],
                       dim=-1).reshape(len(counts), 96)


def tesauro198(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding.tesauro198: Tesauro's 198 inputs."""
    mine, theirs = _own_counts(boards)
    off = MAX_CHECKERS - torch.stack([mine.sum(1), theirs.sum(1)], dim=1)
    ones = torch.ones((len(boards), 1), device=boards.device)
    rest = _columns([mine[:, 24] / 2, theirs[:, 24] / 2, off / 15, ones, torch.zeros_like(ones)])
    return torch.cat([_point_units(mine[:, :24]), _point_units(theirs[:, :24]), rest], dim=1)


def tesauro198_enter(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding.tesauro198_enter: tesauro198 of the 26 cells, the borne-off units without the checkers
    still to enter (cells 26 and 27 of Acey-Deucey's boards, none on a board of 26), then those checkers / 15
    and whether any are left."""
    to_enter = (boards[:, 26:28].to(torch.float32) if boards.shape[1] > 26
                else torch.zeros((len(boards), 2), device=boards.device))
    units = tesauro198(boards[:, :26])
    units[:, 194:196] -= to_enter / 15
    return torch.cat([units, to_enter / 15, (to_enter > 0).to(torch.float32)], dim=1)


def _back_checkers(mine: torch.Tensor, theirs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """engine.rules.board.back_checkers: each side's rearmost occupied point in its own numbering (bar 25, 0 none)."""
    spots = torch.arange(1, 26, device=mine.device)
    return torch.where(mine > 0, spots, 0).max(1).values, torch.where(theirs > 0, spots, 0).max(1).values


def _race_units(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding._race_units: pips / 100 each, their difference / 20, contact, back checkers / 24."""
    mine, theirs = _own_counts(boards)
    spots = torch.arange(1, 26, device=boards.device)
    pips = (mine * spots).sum(1), (theirs * spots).sum(1)
    my_back, their_back = _back_checkers(mine, theirs)
    contact = my_back + their_back > 25
    return _columns([pips[0] / 100, pips[1] / 100, (pips[1] - pips[0]) / 20, contact, my_back / 24,
                     their_back / 24])


def tesauro198_race(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding.tesauro198_race: Tesauro's inputs and the six race units."""
    return torch.cat([tesauro198(boards), _race_units(boards)], dim=1)


def contact_v1(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding.contact_v1: tesauro198+race, then the contact features of each side."""
    return torch.cat([tesauro198_race(boards), contact_features(boards), contact_features(flip(boards))], dim=1)


def contact_v2(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding.contact_v2: contact_v1, then the further contact features of each side (each side's
    Sides made once for both kinds of feature)."""
    mine, theirs = Sides.of(boards), Sides.of(flip(boards))
    return torch.cat([tesauro198_race(boards), contact_features(mine), contact_features(theirs),
                      contact_extra_features(mine), contact_extra_features(theirs)], dim=1)


def contact_v3(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding.contact_v3: contact_v2, then the contact-v3 features of each side."""
    mine, theirs = Sides.of(boards), Sides.of(flip(boards))
    return torch.cat([tesauro198_race(boards), contact_features(mine), contact_features(theirs),
                      contact_extra_features(mine), contact_extra_features(theirs), contact_v3_features(mine),
                      contact_v3_features(theirs)], dim=1)


def race_v1(boards: torch.Tensor) -> torch.Tensor:
    """models.encoding.race_v1: tesauro198+race, then the race features of each side."""
    return torch.cat([tesauro198_race(boards), race_features(boards), race_features(flip(boards))], dim=1)


TWINS = {"tesauro198": tesauro198, "tesauro198+race": tesauro198_race, "contact-v1": contact_v1,
         "contact-v2": contact_v2, "contact-v3": contact_v3, "race-v1": race_v1, "tesauro198+enter": tesauro198_enter}
ENCODINGS = {name: (function, numpy_encodings[name][1]) for name, function in TWINS.items()}  # the widths: numpy's


def encoder(name: str):
    """(function, width) of the encoding ``name``, as models.encoding.encoder; GammonError names the known ones."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise GammonError(f"unknown encoding {name!r}; the torch encodings are {', '.join(ENCODINGS)}") from None


def _crashed(counts: torch.Tensor) -> torch.Tensor:
    """engine.rules.board._crashed: at most six checkers left in play once the dead ones (1- and 2-points) are
    set aside."""
    total = counts.sum(1)
    ace, deuce = counts[:, 0], counts[:, 1]
    piled_ace = ace > 1
    in_play = torch.where(piled_ace, total - ace, total - (deuce - 1).clamp(min=0))
    both = piled_ace & (deuce > 1) & (total - ace - deuce + 1 <= 6)
    return (total <= 6) | (in_play <= 6) | both


def position_class(boards: torch.Tensor) -> torch.Tensor:
    """engine.rules.board.position_class: CONTACT, CRASHED or RACE for each board (the nets' routing)."""
    mine, theirs = _own_counts(boards)
    my_back, their_back = _back_checkers(mine, theirs)
    crashed = _crashed(mine) | _crashed(theirs)
    return torch.where(my_back + their_back <= 25, RACE, torch.where(crashed, CRASHED, CONTACT))

