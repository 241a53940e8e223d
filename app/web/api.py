"""The web board's server: one page (``static/``) and a JSON API, built with FastAPI.

``/api/eval``, ``/api/hint``, ``/api/cube``, ``/api/moves``, ``/api/race`` and ``/api/analyze`` return what
``gammon eval|hint|cube|moves|race|analyze --json`` prints, built by the same functions
(:mod:`app.analyse`, :mod:`app.race`, :meth:`engine.review.match_analysis.MatchAnalysis.as_dict`; ``/api/analyze``
adds the summary's row labels, ``summary_rows``, as ``gammon analyze`` prints them). ``/api/board``
draws a position (and the result of a move, with its steps for the arrows and the ID of the position
it leads to) with :func:`engine.records.svg.board_svg`; it, eval, hint and cube say in ``situation``
who is who and which rules are in force (:func:`engine.records.formats.describe_state`).
``/api/games`` plays against the bot (:mod:`app.web.games`). ``/api/rollout`` returns what ``gammon hint
--rollout --json`` prints (:func:`app.analyse.rollout_report`); ``/api/rollouts`` runs the same rollout as a job
(:mod:`app.web.jobs`) that the page polls for its progress. ``/api/cube-rollout`` and ``/api/cube-rollouts`` do the
same for ``gammon cube --rollout --json`` (no double and double/take rolled out with the same dice); their jobs are
polled at ``/api/rollouts/{id}`` too. The interactive API documentation is at ``/docs``.

The analyses (eval, hint, cube, analyze, the rollouts) run on ``ANALYSIS_THREADS`` threads of their own, with one
analyst per variant, loaded once: the memory a search used stays with the thread that searched, so
the server's memory follows those few threads, not the number of requests that came at once; more
requests wait their turn.

Every operation on a position, and a game, takes ``variant``: any the command line's
``--variant`` takes (:data:`gammon.options.VARIANT_CHOICES`). The bot and the analyses use the
variant's own net, as the command line does, so a variant without one (Acey-Deucey, until a
net is shipped or ``gammon web --model`` names one) is refused with the command line's
one-line reason; its board and legal moves need no net. ``/api/analyze`` reads match files,
which hold backgammon's own board only.

A fault in what was sent is a 4xx whose JSON ``detail`` is one line: 400 for a position,
move, dice or file the engine refuses (:class:`engine.errors.GammonError`), 404 for an
unknown game or rollout, 413 for an upload over ``MAX_UPLOAD_BYTES``, 422 for a parameter out of range (a
rollout of more than ``MAX_ROLLOUT_GAMES`` games or ``MAX_ROLLOUT_PLAYS`` plays among them), 429 for a rollout
started while ``app.web.jobs.MAX_JOBS`` are still to finish.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from gammon.app.analyse import (
    ROLLOUT_DEFAULTS,
    cube_report,
    cube_rollout_json,
    eval_report,
    hint_report,
    level_settings,
    moves_report,
    position_in_variant,
    rollout_games_total,
    rollout_report,
)
from gammon.app.arguments import dice_for, parse_dice, with_rules
from gammon.app.race import race_report
from gammon.app.review import SUMMARY_ROWS
from gammon.app.terminal import MAX_MOVE_CHARS
from gammon.app.web.games import GameTable, NoSuchGame, board_picture
from gammon.app.web.jobs import JobTable, NoSuchJob, TooManyJobs
from gammon.engine.cube.met import DEFAULT_MET, MAX_AWAY, METS, using_met
from gammon.engine.errors import GammonError
from gammon.engine.records.formats import MatchState, describe_state, gnubgid, position_id, xgid
from gammon.engine.records.match_files import READ_SUFFIXES, load_match, match_suffix
from gammon.engine.records.matchlog import MatchFileError
from gammon.engine.review.advice import LEVELS
from gammon.engine.review.match_analysis import analyse
from gammon.engine.rules.board import BoardError, pip_counts, starting_board
from gammon.engine.rules.notation import OFF_BOARD, LegalPlay, find_play, play_steps
from gammon.engine.rules.variants import Variant, variant_named
from gammon.models.players import shared_analyst
from gammon.options import MATCH_PLY, MAX_PLY, POSITION_PLY, VARIANT_CHOICES

STATIC = Path(__file__).resolve().parent / "static"
MAX_UPLOAD_BYTES = 1 << 20  # match files are tens of KiB; the limit keeps a stray upload out of memory
# Analyses at once. Each holds tens of MB of search arrays, which the allocator keeps for the thread that
# made them: four 3-ply requests at a time on the request threads grew the server for good (issue 32 row 14).
ANALYSIS_THREADS = 2
# One rollout's cost: R3's games (the command line's default) for each of at most 8 plays, about what a person
# compares. At worst (variance-reduced, played to the end) that holds an analysis thread for about a quarter of
# an hour; unbounded, one request could hold it for hours.
MAX_ROLLOUT_GAMES = 1296
MAX_ROLLOUT_PLAYS = 8

VariantName = Literal[tuple(VARIANT_CHOICES)]
PositionText = Annotated[str, Query(max_length=200, description="Position ID, PositionID:MatchID or XGID")]
DiceText = Annotated[str | None, Query(max_length=10, description="the roll, e.g. 31 (default: the position's dice)")]
Ply = Annotated[int, Query(ge=0, le=MAX_PLY, description="search depth")]
MetName = Annotated[str, Query(max_length=40, description=f"match play: the match equity table ({', '.join(METS)})")]
MoneyRule = Annotated[bool | None, Query(description="money play: on or off (default: as the position says)")]
LevelName = Annotated[Literal[tuple(LEVELS)] | None, Query(description="a named rollout level: " + "; ".join(
    f"{name}: the best {level.candidates} plays, {level.games} games, {level.truncate} turns, variance-reduced"
    for name, level in LEVELS.items()) + "; it sets top, games, truncate and vr")]
CubeLevelName = Annotated[Literal[tuple(LEVELS)] | None, Query(description="a named rollout level: " + "; ".join(
    f"{name}: {level.games} games, {level.truncate} turns, variance-reduced" for name, level in LEVELS.items())
    + "; it sets games, truncate and vr")]
RolloutPlays = Annotated[int | None, Query(ge=1, le=MAX_ROLLOUT_PLAYS, description="plays to roll out (default 4)")]
RolloutGames = Annotated[int | None, Query(ge=36, le=MAX_ROLLOUT_GAMES, multiple_of=36,
                                           description="games a play, a multiple of 36 (default 1296)")]
Truncation = Annotated[int | None, Query(ge=1, description="stop after N turns and score with the net")]
VarianceReduced = Annotated[bool | None, Query(description="variance reduction (default off)")]
Seed = Annotated[int | None, Query(ge=0, description="dice seed (default 0)")]


class NewGame(BaseModel):
    length: int = Field(0, ge=0, le=MAX_AWAY, description="match length, 0 for a money game")
    variant: VariantName = "standard"
    seed: int | None = Field(None, ge=0, description="dice seed, for a game that can be played again")
    tutor: float | None = Field(None, gt=0, description="the tutor's threshold: a decision losing more (cubeful "
                                "equity per unit of the cube, EMG in a match) waits at the prompt keep; null: none")


class Command(BaseModel):
    command: str = Field(max_length=MAX_MOVE_CHARS, description="what gammon play reads: roll, double, take, "
                                                                "pass, a move like 24/18 13/11, resign, hint; "
                                                                "y or n at the tutor's keep")


def roll(text: str | None) -> tuple[int, int] | None:
    """The dice typed in the page (64, 6-4, 6,4), read as the command line reads ``--dice``; None when empty."""
    if text is None or not text.strip():
        return None
    try:
        return parse_dice(text)
    except argparse.ArgumentTypeError as exc:
        raise BoardError(str(exc)) from None


def one_line(exc: RequestValidationError) -> str:
    """The validation errors as one line: 'ply: Input should be less than or equal to 3'."""
    return "; ".join(f"{'.'.join(str(part) for part in error['loc'][1:]) or 'request'}: {error['msg']}"
                     for error in exc.errors())


async def read_upload(request: Request) -> bytes:
    """The request body, refused with 413 once it passes MAX_UPLOAD_BYTES (before it is all read)."""
    too_big = HTTPException(413, f"the file is over the {MAX_UPLOAD_BYTES // 1024} KiB limit")
    if int(request.headers.get("content-length") or 0) > MAX_UPLOAD_BYTES:
        raise too_big
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_UPLOAD_BYTES:
            raise too_big
    return bytes(data)


@dataclass(frozen=True)
class PositionAsked:
    """A position asked about, read and checked, with what it is judged under: its variant, the match equity
    table and (money play) the Jacoby and beaver rules, as the command line's options give them."""

    position: str
    board: np.ndarray
    state: MatchState | None
    variant: str
    met: str


def position_asked(position: PositionText, variant: VariantName = "standard", met: MetName = DEFAULT_MET,
                   jacoby: MoneyRule = None, beavers: MoneyRule = None) -> PositionAsked:
    board, state = position_in_variant(position, variant)
    return PositionAsked(position, board, with_rules(state, jacoby, beavers), variant, met)


Position = Annotated[PositionAsked, Depends(position_asked)]


@dataclass(frozen=True)
class RolloutAsked:
    """A rollout asked for, read and checked: the position, the roll, the search that picks the plays, and
    :func:`app.analyse.rollout_report`'s ``settings`` (top, games, seed, truncate, truncate_ply, vr)."""

    at: PositionAsked
    dice: tuple[int, int]
    plies: int
    settings: dict

    def games_total(self) -> int:
        """Every game of every play rolled out (a roll may have fewer plays than ``top``): the progress's end."""
        return rollout_games_total(self.at.board, self.dice, self.at.variant, self.settings)


def rollout_asked(at: Position, dice: DiceText = None, ply: Ply = POSITION_PLY, level: LevelName = None,
                  top: RolloutPlays = None, games: RolloutGames = None, truncate: Truncation = None,
                  vr: VarianceReduced = None, seed: Seed = None) -> RolloutAsked:
    """``gammon hint --rollout``'s arguments as the query gives them, or ``--level``'s (which takes no others)."""
    given = {name: value for name, value in (("top", top), ("games", games), ("truncate", truncate), ("vr", vr),
                                             ("seed", seed)) if value is not None}
    if level and given:
        raise GammonError(f"level {level} sets the plays, games and truncation of the rollout; "
                          f"drop {', '.join(given)}")
    settings = {**ROLLOUT_DEFAULTS, **(level_settings(level) if level else given)}
    return RolloutAsked(at, dice_for(roll(dice), at.state), ply, settings)


@dataclass(frozen=True)
class CubeRolloutAsked:
    """A cube rollout asked for, read and checked: the position and :func:`app.analyse.cube_rollout_json`'s
    settings (level, games, seed, truncate, vr)."""

    at: PositionAsked
    settings: dict

    def games_total(self) -> int:
        return 2 * self.settings["games"]  # no double and double/take


def cube_rollout_asked(at: Position, level: CubeLevelName = None, games: RolloutGames = None,
                       truncate: Truncation = None, vr: VarianceReduced = None,
                       seed: Seed = None) -> CubeRolloutAsked:
    """``gammon cube --rollout``'s arguments as the query gives them, or ``--level``'s (which takes no others)."""
    given = {name: value for name, value in (("games", games), ("truncate", truncate), ("vr", vr), ("seed", seed))
             if value is not None}
    if level and given:
        raise GammonError(f"level {level} sets the games, truncation and variance reduction of the rollout; "
                          f"drop {', '.join(given)}")
    chosen = ({key: value for key, value in level_settings(level).items() if key != "top"} if level else given)
    settings = {"level": level, **{key: ROLLOUT_DEFAULTS[key] for key in ("games", "seed", "truncate", "vr")},
                **chosen}
    return CubeRolloutAsked(at, settings)


def position_after(text: str, play: LegalPlay, state: MatchState | None, rules: Variant) -> str:
    """The ID of the position ``play`` leads to, from the side to roll next (the opponent, or the mover again
    after a wild roll), written as ``text`` was: a Position ID, a GNUbgID, or an XGID (which alone keeps beavers
    and the cube limit)."""
    board = rules.next_on_roll(play.board, play.rolls_again)
    if state is None:
        return position_id(board, rules)
    player = state.on_roll if play.rolls_again else 1 - state.on_roll
    after = replace(state, on_roll=player, turn=player, dice=(0, 0), doubled=False, resignation=0)
    write = gnubgid if text.count(":") == 1 else xgid  # a GNUbgID has one ':', an XGID nine
    return write(board, after, rules)


def analyse_upload(data: bytes, name: str, evaluator, plies: int, cube: bool) -> dict:
    """``gammon analyze --json`` of an uploaded .mat, .sgf or .xg file, read from a temporary folder that is then
    removed.

    Messages name the file as it was uploaded, not by its temporary path."""
    suffix = match_suffix(name, READ_SUFFIXES)
    with tempfile.TemporaryDirectory(prefix="gammon-web-") as folder:
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            return analyse(load_match(path), evaluator, plies, cube=cube).as_dict()
        except MatchFileError as exc:
            raise MatchFileError(exc.reason, name, exc.game, exc.line, exc.unit) from None


def create_app(model: str = "default") -> FastAPI:
    """The web board's application; ``model`` is a player name or weights file, as ``--model`` takes."""
    games = GameTable()
    rollouts = JobTable()
    analyses = ThreadPoolExecutor(ANALYSIS_THREADS, thread_name_prefix="gammon-analysis")
    # Rollouts take seconds to minutes: a thread of their own, so that hints and cube answers never wait behind them.
    rolling = ThreadPoolExecutor(1, thread_name_prefix="gammon-rollout")

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        games.end_all()  # the server stops: so do the games' threads
        rollouts.stopping.set()  # and the rollouts, at their next progress report
        analyses.shutdown(wait=False, cancel_futures=True)
        rolling.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="gammon", summary="Backgammon analysis: positions, hints, cube decisions, matches, games",
                  lifespan=lifespan)

    def analyst(variant: str):
        return shared_analyst(model, variant)

    def judged(report, at: PositionAsked, *args, **kwargs):
        """``report(net, position, board, state, ...)``, the command line's answer, by the variant's net under
        the match equity table asked for."""
        with using_met(at.met):
            return report(analyst(at.variant), at.position, at.board, at.state, *args, **kwargs)

    async def analysed(work, *args, **kwargs):
        """``work(*args, **kwargs)`` on one of the ANALYSIS_THREADS (in turn), the event loop free meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(analyses, functools.partial(work, *args, **kwargs))

    def on_analysis_thread(endpoint):
        """``endpoint``, a request answered by an analysis, run by :func:`analysed`."""
        @functools.wraps(endpoint)
        async def queued(*args, **kwargs):
            return await analysed(endpoint, *args, **kwargs)
        return queued

    @app.exception_handler(NoSuchGame)
    @app.exception_handler(NoSuchJob)
    async def unknown(request: Request, exc: GammonError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(TooManyJobs)
    async def busy(request: Request, exc: TooManyJobs) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=429)

    @app.exception_handler(GammonError)
    async def refused(request: Request, exc: GammonError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": one_line(exc)}, status_code=422)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/variants")
    def variants():
        """The variants a position, an evaluation or a game can be in, and each one's starting Position ID."""
        return {"variants": VARIANT_CHOICES,
                "starting_positions": {name: position_id(starting_board(name), name) for name in VARIANT_CHOICES}}

    @app.get("/api/board")
    def board(position: PositionText, variant: VariantName = "standard",
              move: Annotated[str | None, Query(max_length=MAX_MOVE_CHARS)] = None, dice: DiceText = None,
              mover: Annotated[str, Query(max_length=40)] = "X", opponent: Annotated[str, Query(max_length=40)] = "O"):
        """The position as an SVG picture, with pip counts, match state and its ``situation`` in words; with
        ``move``, the position after it (still from the mover's side), ``arrows``, its steps as [from, to] points
        (25 the bar; 0 the tray: borne off, or as a source, in Acey-Deucey, a checker entering from off the
        board), and ``after``, the ID of the position it leads to, from the side to roll next."""
        rules = variant_named(variant)
        board, state = position_in_variant(position, rules)
        situation = describe_state(state)  # as given: the state made up below only draws the dice
        arrows, title, typed, after = [], position, roll(dice), None  # dice are read (and bad ones refused) always
        if move is None and typed is not None:
            state = replace(state or MatchState(), dice=typed)  # drawn on the board
        if move is not None:
            dice = dice_for(typed, state)
            play = find_play(board, dice, move, rules)
            # A checker entering from off the board (Acey-Deucey) starts at the tray, where it waited.
            arrows = [[0 if s == OFF_BOARD else s, t] for s, t in play_steps(board, play.steps)]
            after = position_after(position, play, state, rules)
            board, title = play.board, f"after {play.notation or '(no move)'}"
            state = replace(state or MatchState(), dice=dice)
        svg = board_picture(board, state, rules, title=title, names=(mover, opponent))
        return {"position": position, "svg": svg, "pips": pip_counts(board, rules.geometry).tolist(),
                "arrows": arrows, "state": asdict(state) if state else None, "situation": situation,
                "after": after}

    @app.get("/api/moves")
    def moves(position: PositionText, dice: DiceText = None, variant: VariantName = "standard"):
        """Every legal play of the roll: ``gammon moves --json``."""
        board, state = position_in_variant(position, variant)
        return moves_report(board, dice_for(roll(dice), state), variant)

    @app.get("/api/eval")
    @on_analysis_thread
    def evaluate(at: Position, ply: Ply = POSITION_PLY):
        """Cubeless probabilities, cubeless and cubeful equity at 0..ply: ``gammon eval --json``."""
        return judged(eval_report, at, ply)

    @app.get("/api/hint")
    @on_analysis_thread
    def hint(at: Position, dice: DiceText = None, ply: Ply = POSITION_PLY):
        """Every legal play ranked by cubeful equity (EMG in a match): ``gammon hint --json``."""
        return judged(hint_report, at, dice_for(roll(dice), at.state), ply)

    def rolled_out(asked: RolloutAsked, progress=None) -> dict:
        return judged(rollout_report, asked.at, asked.dice, asked.plies, **asked.settings, progress=progress)

    @app.get("/api/rollout")
    async def rollout(asked: Annotated[RolloutAsked, Depends(rollout_asked)]):
        """The best plays of the roll by the search at ``ply``, rolled out with the same dice (cubeless games,
        each play valued cubeful or at the match score), each against the best game by game: ``gammon hint
        --rollout --json``, or with ``level``, ``--level``'s. On the rollouts' own thread, a job as the page's
        are (so counted in their limit)."""
        job = rollouts.new(asked.games_total(), polled=False)
        await asyncio.wrap_future(rolling.submit(job.run, functools.partial(rolled_out, asked)))
        return job.snapshot()["result"]

    @app.post("/api/rollouts", status_code=202)
    def start_rollout(asked: Annotated[RolloutAsked, Depends(rollout_asked)]):
        """``/api/rollout``'s rollout as a job, answered at once: its ``id``, ``done``, ``games_done`` and
        ``games_total``; ``GET /api/rollouts/{id}`` follows it to its ``result``."""
        analyst(asked.at.variant)  # a variant without a net is refused now, not at the page's first poll
        job = rollouts.new(asked.games_total())
        rolling.submit(job.run, functools.partial(rolled_out, asked))
        return job.snapshot()

    def cube_rolled_out(asked: CubeRolloutAsked, progress=None) -> dict:
        return judged(cube_rollout_json, asked.at, **asked.settings, progress=progress)

    @app.get("/api/cube-rollout")
    async def cube_rollout(asked: Annotated[CubeRolloutAsked, Depends(cube_rollout_asked)]):
        """No double and double/take rolled out with the same dice (money, or EMG at the match score): ``gammon
        cube --rollout --json``, or with ``level``, ``--level``'s. On the rollouts' own thread, as a job."""
        job = rollouts.new(asked.games_total(), polled=False)
        await asyncio.wrap_future(rolling.submit(job.run, functools.partial(cube_rolled_out, asked)))
        return job.snapshot()["result"]

    @app.post("/api/cube-rollouts", status_code=202)
    def start_cube_rollout(asked: Annotated[CubeRolloutAsked, Depends(cube_rollout_asked)]):
        """``/api/cube-rollout``'s rollout as a job, answered at once; ``GET /api/rollouts/{id}`` follows it."""
        analyst(asked.at.variant)
        job = rollouts.new(asked.games_total())
        rolling.submit(job.run, functools.partial(cube_rolled_out, asked))
        return job.snapshot()

    @app.get("/api/rollouts/{job_id}")
    def rollout_job(job_id: str):
        """A rollout job as it stands: games done of games in all, and once ``done``, the ``result``, what
        ``/api/rollout`` answers. A finished job is kept a few minutes."""
        return rollouts.get(job_id).snapshot()

    @app.get("/api/cube")
    @on_analysis_thread
    def cube(at: Position, ply: Ply = POSITION_PLY):
        """No double / double, take / double, pass, with the equities (and MWC in a match): ``gammon cube --json``."""
        return judged(cube_report, at, ply)

    @app.get("/api/race")
    @on_analysis_thread
    def race(position: PositionText, ply: Ply = POSITION_PLY, variant: VariantName = "standard"):
        """A race's pips, EPC, the Keith, Thorp, Isight, Kleinman and 8-9-12 counts with their cube advice, and our
        evaluation: ``gammon race --json``. The counts are backgammon's: another variant is refused."""
        if variant != "standard":
            raise GammonError(f"race counts are backgammon's (the standard variant), not {variant}'s")
        board, state = position_in_variant(position)
        return race_report(analyst(variant), position, board, state, ply)

    @app.post("/api/analyze")
    async def analyze(request: Request, name: Annotated[str, Query(max_length=255, description="the file's name")],
                      ply: Ply = MATCH_PLY, no_cube: bool = False):
        """A whole match (the request body: a .mat or .sgf file, at most 1 MiB): ``gammon analyze --json``."""
        data = await read_upload(request)
        evaluator = await analysed(analyst, "standard")  # the net gammon analyze loads
        report = await analysed(analyse_upload, data, name, evaluator, ply, not no_cube)
        return {**report, "summary_rows": SUMMARY_ROWS}

    @app.post("/api/games")
    def new_game(settings: NewGame):
        """A game against the bot: the snapshot at your first prompt (the bot may have moved first)."""
        return games.new(analyst(settings.variant), settings.length, settings.variant, settings.seed, settings.tutor)

    @app.get("/api/games/{game_id}")
    def game(game_id: str):
        """The game as it stands."""
        return games.get(game_id).current()

    @app.post("/api/games/{game_id}")
    def command(game_id: str, command: Command):
        """Answer the prompt: roll, double, take, pass, a move, resign [gammon|backgammon], hint."""
        return games.get(game_id).send(command.command)

    @app.delete("/api/games/{game_id}")
    def end_game(game_id: str):
        games.end(game_id)
        return {"ended": game_id}

    return app
