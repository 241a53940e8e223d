"""Analyse a whole match or session: each decision's equity loss, error rates, luck, the equity over the match.

The match is replayed (:func:`engine.review.replay.replay`) and every decision judged against
our own best at ``plies``:

- **Checker plays**: the loss is the cubeful equity of the best play less that of the play
  made, per unit of the cube (:func:`engine.search.analysis.rank_moves`: money equity, or at a
  match score the match equity each play leads to, in EMG, so that gammons are priced at
  the score). The played move is always searched as deep as the best. Forced plays (one
  legal result) are not decisions.
- **Cube decisions**, before each roll where the player on roll had access to the cube:
  with no double (ND), double/take (DT) and double/pass (DP = +1) for the player on roll
  (:func:`engine.search.analysis.cube_advice`, money or at the match score in EMG), the best is
  ``max(ND, min(DT, DP))``; doubling scores ``min(DT, DP)``, not doubling ND. A decision is
  counted when the player doubled, when doubling was right, or when doubling would have
  cost less than an error (``ERROR``): clear no-doubles do not dilute the rate. Where a
  cube cannot gain (the Crawford game, a cube that already wins the match) there is none.
- **Answers to a double**: taking is worth -DT to the taker, passing -DP.

Where the file brought its own analysis (eXtreme Gammon's, in a .xg file), each decision's JSON carries it
beside ours, and the match's how often and by how much the engines disagree (:mod:`engine.review.file_analysis`).

Thresholds per decision (per unit of the cube): doubtful from 0.04, error from 0.08,
blunder from 0.16 (gnubg's defaults). The error rate is the mean loss per counted decision
in millipoints (mp, thousandths of a point: gnubg's normalised mEMG); the performance
rating PR is half of it (XG's scale: 500 times the mean loss). Luck of a roll
(:mod:`engine.play.luck`) is the cubeless equity of the best 0-ply play of the roll less the
average of the same over the rolls that could have come (the 30 non-doubles for a game's
opening roll). It is reported in mp per unit of the cube.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from gammon.engine.cube.match import can_double, match_equity_of_probs
from gammon.engine.cube.state import Cube, best_cube_value, best_cube_words
from gammon.engine.play.luck import roll_luck
from gammon.engine.play.rollout import cube_rollout
from gammon.engine.records.matchlog import MatchLog
from gammon.engine.review.advice import Level, rolled_out
from gammon.engine.review.file_analysis import agreement, verdict_report
from gammon.engine.review.replay import Decision, replay
from gammon.engine.rules.notation import format_move
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.engine.search.analysis import cube_advice, rank_moves

DOUBTFUL, ERROR, BLUNDER = 0.04, 0.08, 0.16
MISTAKES = ("error", "blunder")  # the grades a report lists and a study deck asks about
ALTERNATIVES = 5  # the plays a report shows beside the one played


def grade(loss: float) -> str:
    """The words for a loss per unit of the cube: "", doubtful, error or blunder."""
    return "blunder" if loss >= BLUNDER else "error" if loss >= ERROR else "doubtful" if loss >= DOUBTFUL else ""


@dataclass
class Judged:
    """One decision with its verdict: what was played, what was best, the loss (per unit of the cube)."""

    decision: Decision
    played: str
    best: str
    loss: float
    counted: bool  # part of the error rate (unforced plays, close or actual cube decisions, every answer)
    cube_error: str = ""  # missed double, wrong double, wrong take, wrong pass
    luck: float | None = None  # moves: the roll's luck for the mover
    equity: dict = field(default_factory=dict)  # the figures behind the verdict
    alternatives: list[tuple[str, float]] = field(default_factory=list)  # moves: the best few plays, equity

    @property
    def grade(self) -> str:
        return grade(self.loss) if self.counted else ""

    def as_dict(self) -> dict:
        d = self.decision
        return {"game": d.game, "move": d.row, "line": d.line, "player": d.player, "kind": d.kind,
                "position": d.gnubgid,
                "dice": list(d.dice) if d.dice else None, "action": self.played, "best": self.best,
                "loss_mp": round(1000 * self.loss, 1), "counted": self.counted, "grade": self.grade,
                "cube_error": self.cube_error, "luck_mp": None if self.luck is None else round(1000 * self.luck, 1),
                "equity": self.equity,
                "alternatives": [{"move": move, "equity": round(equity, 4)} for move, equity in self.alternatives],
                "file_analysis": verdict_report(self) if d.analysis else None}


@dataclass
class PlayerStats:
    name: str
    decisions: int = 0
    moves: int = 0  # unforced checker plays
    cube_decisions: int = 0  # counted cube decisions and answers
    error_rate_mp: float = 0.0
    pr: float = 0.0
    checker_loss_mp: float = 0.0
    cube_loss_mp: float = 0.0
    doubtful: int = 0
    errors: int = 0
    blunders: int = 0
    missed_doubles: int = 0
    wrong_doubles: int = 0
    wrong_takes: int = 0
    wrong_passes: int = 0
    rolls: int = 0
    luck_mp: float = 0.0  # total over the player's rolls
    luck_per_roll_mp: float = 0.0


@dataclass
class MatchAnalysis:
    log: MatchLog
    plies: int
    judged: list[Judged]
    players: list[PlayerStats]
    graph: list[tuple[int, float]]  # (game, player 0's match winning chance, or cubeless equity in money play)
    rolling_out: RollingOut | None = None

    @property
    def rolled_out_decisions(self) -> int:
        """How many decisions the rollout level judged (checker plays and cube decisions)."""
        return sum("rolled_out" in j.equity for j in self.judged)

    def as_dict(self) -> dict:
        level = self.rolling_out
        return {"players": [asdict(p) for p in self.players], "plies": self.plies,
                "rollout_level": None if level is None else {"level": level.level.name, "margin": level.margin,
                                                             "rolled_out": self.rolled_out_decisions},
                "match_length": self.log.length,
                "games": len(self.log.games), "final_score": list(self.log.final_score),
                "graph": [{"game": g, "value": round(v, 4)} for g, v in self.graph],
                "file_analysis": agreement(self.judged),
                "decisions": [j.as_dict() for j in self.judged]}


@dataclass(frozen=True)
class RollingOut:
    """Which decisions a rollout level (engine.review.advice.LEVELS) judges again after the search: the close
    ones. A checker play where the played move lies within ``margin`` of the best, or the best was played and
    the next lies within it: its candidates are the level's best few by the search and the played move. A
    cube decision where doubling and not doubling lie within ``margin`` of each other, or an answer where
    taking and passing do: no double and double/take are rolled out (engine.play.rollout.cube_rollout)."""

    level: Level
    margin: float = ERROR


class _CloseDecision:
    """A rollout task of analyze --level, known to the runners by its decision's ``number`` in the match."""

    number: int

    @property
    def key(self) -> int:
        return self.number

    @property
    def where(self) -> str:
        return f"decision {self.number}"


@dataclass(frozen=True)
class ClosePlay(_CloseDecision):
    """A close checker play's candidates to roll out, all a worker needs: decision ``number`` of the match (its
    key, and its rollout's dice seed), the candidates' afterstates (mover's view) and the mover's cube."""

    number: int
    boards: tuple[tuple[int, ...], ...]
    again: tuple[bool, ...]
    cube: Cube
    level: Level


@dataclass(frozen=True)
class CloseCube(_CloseDecision):
    """A close cube decision to roll out, all a worker needs: decision ``number`` of the match (its key, and
    its rollout's dice seed), the doubler's board and cube. A double and its answer share one."""

    number: int
    board: tuple[int, ...]
    cube: Cube
    level: Level


def roll_close(evaluator, close: ClosePlay | CloseCube) -> np.ndarray:
    """What the runners of analyze --level run, at the level's games, variance-reduced and truncated, the dice
    following the decision's number: a close play's candidates' values (engine.review.advice.rolled_out), or
    a close cube decision's no double and double/take per unit of the cube (engine.play.rollout.cube_rollout)."""
    level = close.level
    if isinstance(close, CloseCube):
        result = cube_rollout(evaluator, np.array(close.board, dtype=np.int8), close.cube, level.games,
                              close.number, truncate=level.truncate, reduce_variance=True)
        return np.array([result.no_double, result.double_take])
    return rolled_out(evaluator, close.cube, np.array(close.boards, dtype=np.int8), np.array(close.again),
                      level.games, close.number, level.truncate, reduce_variance=True)[1]


def analyse(log: MatchLog, evaluator, plies: int = 0, cube: bool = True,
            progress: Callable[[int], None] | None = None, decisions: list[Decision] | None = None,
            rolling_out: RollingOut | None = None, runner=None) -> MatchAnalysis:
    """Judge every decision of ``log`` with ``evaluator`` at ``plies``; ``cube`` False skips the cube.

    ``progress(k)`` hears of every k decisions judged. ``decisions``: ``replay(log)``, where the caller has it.
    ``rolling_out``: the close decisions judged again by a rollout level, once the search has judged
    them all; ``runner`` rolls them out (a list of :class:`ClosePlay` and :class:`CloseCube` in, ``(item,
    values)`` pairs out in any order, as training.runners' runners do with :func:`roll_close`), in this
    process by default. Each one's dice follow its decision's number, so any runner gives the same answers.
    """
    decisions = replay(log) if decisions is None else decisions
    moves = [d for d in decisions if d.kind == "move"]
    luck, graph = _luck_and_graph(evaluator, moves)
    judged, close = [], {}  # close: decision number -> (its place in judged, its candidates, the played move)
    cubes: dict = {}  # (board, cube) -> (the first decision's number, the places in judged of it and its answer)
    close_cubes = set()  # the keys of cubes with a close decision: both the double and its answer are rolled out
    for number, d in enumerate(decisions):
        if d.kind == "move":
            ranked = rank_moves(evaluator, d.board, d.dice, plies, d.cube, also=d.after)
            played = next(m for m in ranked if np.array_equal(m.board, d.after))
            judged.append(_judge_move(d, ranked, played, luck.pop(0)))
            if rolling_out is not None and len(ranked) > 1 and _close(ranked, played, rolling_out.margin):
                candidates = ranked[:rolling_out.level.candidates]
                candidates += [] if any(m is played for m in candidates) else [played]
                close[number] = (len(judged) - 1, candidates, played)
        elif cube:
            verdict = _judge_cube(evaluator, d, plies)
            if verdict is not None:
                judged.append(verdict)
                key = (d.board.tobytes(), d.cube)
                cubes.setdefault(key, (number, []))[1].append(len(judged) - 1)
                if rolling_out is not None and _close_cube(verdict, rolling_out.margin):
                    close_cubes.add(key)
        if progress:
            progress(1)
    cubes = {key: value for key, value in cubes.items() if key in close_cubes}
    if close or cubes:
        level = rolling_out.level
        items = [ClosePlay(number, tuple(tuple(int(x) for x in m.board) for m in candidates),
                           tuple(m.rolls_again for m in candidates), decisions[number].cube, level)
                 for number, (_, candidates, _) in close.items()]
        items += [CloseCube(number, tuple(int(x) for x in decisions[number].board), decisions[number].cube, level)
                  for number, _ in cubes.values()]
        places = {number: places for number, places in cubes.values()}
        runner = runner or (lambda items: ((item, roll_close(evaluator, item)) for item in items))
        for item, values in runner(items):
            if isinstance(item, CloseCube):
                for at in places[item.number]:
                    judged[at] = _rolled_out_cube(judged[at], *values, level.name)
                continue
            at, candidates, played = close[item.number]
            judged[at] = _rolled_out_move(judged[at], candidates, played, values, level.name)
    return MatchAnalysis(log, plies, judged, [_stats(log.players[p], judged, p) for p in (0, 1)], graph,
                         rolling_out)


def _judge_move(d: Decision, ranked, played, luck: float) -> Judged:
    best = ranked[0]
    shown = ranked[:ALTERNATIVES]
    shown += [] if any(m is played for m in shown) else [played]
    return Judged(d, _notation(d, played), _notation(d, best), max(best.cubeful - played.cubeful, 0.0),
                  len(ranked) > 1, luck=luck,
                  equity={"played": round(played.cubeful, 4), "best": round(best.cubeful, 4)},
                  alternatives=[(_notation(d, m), m.cubeful) for m in shown])


def _close(ranked, played, margin: float) -> bool:
    """The played move within ``margin`` of the best, or the best played and the next within it."""
    rival = ranked[1] if played is ranked[0] else played
    return ranked[0].cubeful - rival.cubeful < margin


def _rolled_out_move(searched: Judged, candidates, played, values: np.ndarray, level: str) -> Judged:
    """A close checker play judged again by its candidates' rolled-out ``values`` (:func:`roll_close`)."""
    d = searched.decision
    order = np.argsort(-values, kind="stable")
    mine = next(i for i, m in enumerate(candidates) if m is played)
    return Judged(d, searched.played, _notation(d, candidates[order[0]]), float(values.max() - values[mine]), True,
                  luck=searched.luck,
                  equity={"played": round(float(values[mine]), 4), "best": round(float(values.max()), 4),
                          "rolled_out": level, "searched_loss": round(searched.loss, 4)},
                  alternatives=[(_notation(d, candidates[i]), float(values[i])) for i in order])


def _notation(d: Decision, move) -> str:
    return format_move(d.board, move.steps) or "(no move)"


def _judge_cube(evaluator, d: Decision, plies: int) -> Judged | None:
    """A cube decision or an answer to a double; None where the cube cannot gain anything."""
    doubler_cube: Cube = d.cube
    if not doubler_cube.money and not can_double(doubler_cube):
        return None
    verdict = cube_advice(evaluator, d.board, doubler_cube, plies).decision
    return _cube_judged(d, verdict.no_double, verdict.double_take, verdict.double_pass)


def _close_cube(judged: Judged, margin: float) -> bool:
    """Doubling and not doubling within ``margin`` of each other; for an answer, taking and passing."""
    nd, dt, dp = (judged.equity[k] for k in ("no_double", "double_take", "double_pass"))
    return abs(nd - min(dt, dp) if judged.decision.kind == "cube" else dt - dp) < margin


def _rolled_out_cube(searched: Judged, no_double: float, double_take: float, level: str) -> Judged:
    """A close cube decision judged again by its rolled-out no double and double/take (:func:`roll_close`)."""
    return _cube_judged(searched.decision, no_double, double_take, 1.0, rolled_out=level,
                        searched_loss=round(searched.loss, 4))


def _cube_judged(d: Decision, nd: float, dt: float, dp: float, **more) -> Judged:
    """A cube decision or an answer judged by the doubler's no double, double/take and double/pass; ``more``
    goes into its figures."""
    figures = {"no_double": round(nd, 4), "double_take": round(dt, 4), "double_pass": round(dp, 4), **more}
    if d.kind == "cube":
        value = min(dt, dp) if d.doubled else nd
        loss = float(best_cube_value(nd, dt, dp)) - value
        counted = d.doubled or loss > 0 or min(dt, dp) > nd - ERROR
        error = ("wrong double" if d.doubled else "missed double") if loss > 0 else ""
        return Judged(d, "double" if d.doubled else "no double", best_cube_words(nd, dt, dp)[0], loss, counted,
                      error, equity=figures)
    take, drop = -dt, -dp  # the taker's side
    loss = max(take, drop) - (take if d.took else drop)
    error = ("wrong take" if d.took else "wrong pass") if loss > 0 else ""
    return Judged(d, "take" if d.took else "pass", best_cube_words(nd, dt, dp)[1], loss, True, error,
                  equity=figures)


def _luck_and_graph(evaluator, moves: list[Decision]) -> tuple[list[float], list[tuple[int, float]]]:
    """Each roll's luck for its mover (engine/play/luck.py), and player 0's standing before each move, batched."""
    if not moves:
        return [], []
    boards = np.stack([d.board for d in moves])
    luck, before = roll_luck(evaluator, boards, np.array([d.dice for d in moves]), np.array([d.opening for d in moves]))
    graph = []
    for d, probs in zip(moves, before):
        if d.cube.money:
            value = float(cubeless_equity(probs)) * d.cube.value
            graph.append((d.game, value if d.player == 0 else -value))
        else:
            mwc = float(match_equity_of_probs(probs, d.cube))
            graph.append((d.game, mwc if d.player == 0 else 1.0 - mwc))
    return luck.tolist(), graph


def _stats(name: str, judged: list[Judged], player: int) -> PlayerStats:
    mine = [j for j in judged if j.decision.player == player]
    counted = [j for j in mine if j.counted]
    rolls = [j.luck for j in mine if j.luck is not None]
    stats = PlayerStats(name)
    stats.decisions = len(counted)
    stats.moves = sum(j.decision.kind == "move" for j in counted)
    stats.cube_decisions = stats.decisions - stats.moves
    total = sum(j.loss for j in counted)
    stats.error_rate_mp = round(1000 * total / max(len(counted), 1), 2)
    stats.pr = round(stats.error_rate_mp / 2, 2)
    stats.checker_loss_mp = round(1000 * sum(j.loss for j in counted if j.decision.kind == "move"), 1)
    stats.cube_loss_mp = round(1000 * sum(j.loss for j in counted if j.decision.kind != "move"), 1)
    grades = [j.grade for j in counted]
    stats.doubtful, stats.errors, stats.blunders = (grades.count(g) for g in ("doubtful", "error", "blunder"))
    errors = [j.cube_error for j in counted]
    stats.missed_doubles, stats.wrong_doubles, stats.wrong_takes, stats.wrong_passes = (
        errors.count(e) for e in ("missed double", "wrong double", "wrong take", "wrong pass"))
    stats.rolls = len(rolls)
    stats.luck_mp = round(1000 * sum(rolls), 1)
    stats.luck_per_roll_mp = round(stats.luck_mp / max(len(rolls), 1), 2)
    return stats
