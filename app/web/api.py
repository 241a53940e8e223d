"""The web board's server: one page (``static/``) and a JSON API, built with FastAPI.

``/api/eval``, ``/api/hint``, ``/api/cube``, ``/api/moves`` and ``/api/analyze`` return what
``gammon eval|hint|cube|moves|analyze --json`` prints, built by the same functions
(:mod:`app.analyse`, :meth:`engine.review.match_analysis.MatchAnalysis.as_dict`). ``/api/board``
draws a position (and the result of a move, with its steps for the arrows) with
:func:`engine.records.svg.board_svg`; ``/api/games`` plays against the bot (:mod:`app.web.games`).
The interactive API documentation is at ``/docs``.

Every operation on a position, and a game, takes ``variant``: any the command line's
``--variant`` takes (:data:`gammon.options.VARIANT_CHOICES`). The bot and the analyses use the
variant's own net, as the command line does, so a variant without one (Acey-Deucey, until a
net is shipped or ``gammon web --model`` names one) is refused with the command line's
one-line reason; its board and legal moves need no net. ``/api/analyze`` reads match files,
which hold backgammon's own board only.

A fault in what was sent is a 4xx whose JSON ``detail`` is one line: 400 for a position,
move, dice or file the engine refuses (:class:`engine.errors.GammonError`), 404 for an
unknown game, 413 for an upload over ``MAX_UPLOAD_BYTES``, 422 for a parameter out of range.
"""

from __future__ import annotations

import argparse
import tempfile
from contextlib import asynccontextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated, Literal

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from gammon.app.analyse import cube_report, eval_report, hint_report, moves_report, position_in_variant
from gammon.app.arguments import dice_for, parse_dice
from gammon.app.terminal import MAX_MOVE_CHARS
from gammon.app.web.games import GameTable, NoSuchGame, board_picture
from gammon.engine.cube.met import MAX_AWAY
from gammon.engine.errors import GammonError
from gammon.engine.records.formats import MatchState, position_id
from gammon.engine.records.match_files import MATCH_SUFFIXES, load_match
from gammon.engine.records.matchlog import MatchFileError
from gammon.engine.review.match_analysis import analyse
from gammon.engine.rules.board import BoardError, pip_counts, starting_board
from gammon.engine.rules.notation import OFF_BOARD, find_play, play_steps
from gammon.engine.rules.variants import variant_named
from gammon.models.players import shared_analyst
from gammon.options import VARIANT_CHOICES

STATIC = Path(__file__).resolve().parent / "static"
MAX_UPLOAD_BYTES = 1 << 20  # match files are tens of KiB; the limit keeps a stray upload out of memory

VariantName = Literal[tuple(VARIANT_CHOICES)]
PositionText = Annotated[str, Query(max_length=200, description="Position ID, PositionID:MatchID or XGID")]
DiceText = Annotated[str | None, Query(max_length=10, description="the roll, e.g. 31 (default: the position's dice)")]
Ply = Annotated[int, Query(ge=0, le=3, description="search depth")]


class NewGame(BaseModel):
    length: int = Field(0, ge=0, le=MAX_AWAY, description="match length, 0 for a money game")
    variant: VariantName = "standard"
    seed: int | None = Field(None, ge=0, description="dice seed, for a game that can be played again")


class Command(BaseModel):
    command: str = Field(max_length=MAX_MOVE_CHARS, description="what gammon play reads: roll, double, take, "
                                                                "pass, a move like 24/18 13/11, resign, hint")


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


def analyse_upload(data: bytes, name: str, evaluator, plies: int, cube: bool) -> dict:
    """``gammon analyze --json`` of an uploaded .mat or .sgf file, read from a temporary folder that is then removed.

    Messages name the file as it was uploaded, not by its temporary path."""
    suffix = Path(name).suffix.lower()
    if suffix not in MATCH_SUFFIXES:
        raise MatchFileError(f"a match file ends in .mat or .sgf; got {suffix or 'no suffix'}", name)
    with tempfile.TemporaryDirectory(prefix="gammon-web-") as folder:
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            return analyse(load_match(path), evaluator, plies, cube=cube).as_dict()
        except MatchFileError as exc:
            raise MatchFileError(exc.reason, name, exc.game, exc.line) from None


def create_app(model: str = "default") -> FastAPI:
    """The web board's application; ``model`` is a player name or weights file, as ``--model`` takes."""
    games = GameTable()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        games.end_all()  # the server stops: so do the games' threads

    app = FastAPI(title="gammon", summary="Backgammon analysis: positions, hints, cube decisions, matches, games",
                  lifespan=lifespan)

    def analyst(variant: str):
        return shared_analyst(model, variant)

    @app.exception_handler(NoSuchGame)
    async def unknown_game(request: Request, exc: NoSuchGame) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

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
        """The position as an SVG picture, with pip counts and match state; with ``move``, the position after it
        (still from the mover's side) and ``arrows``, its steps as [from, to] points (25 the bar; 0 the tray:
        borne off, or as a source, in Acey-Deucey, a checker entering from off the board)."""
        rules = variant_named(variant)
        board, state = position_in_variant(position, rules)
        arrows, title, typed = [], position, roll(dice)  # dice are read (and bad ones refused) with or without a move
        if move is None and typed is not None:
            state = replace(state or MatchState(), dice=typed)  # drawn on the board
        if move is not None:
            dice = dice_for(typed, state)
            play = find_play(board, dice, move, rules)
            # A checker entering from off the board (Acey-Deucey) starts at the tray, where it waited.
            arrows = [[0 if s == OFF_BOARD else s, t] for s, t in play_steps(board, play.steps)]
            board, title = play.board, f"after {play.notation or '(no move)'}"
            state = replace(state or MatchState(), dice=dice)
        svg = board_picture(board, state, rules, title=title, names=(mover, opponent))
        return {"position": position, "svg": svg, "pips": pip_counts(board, rules.geometry).tolist(),
                "arrows": arrows, "state": asdict(state) if state else None}

    @app.get("/api/moves")
    def moves(position: PositionText, dice: DiceText = None, variant: VariantName = "standard"):
        """Every legal play of the roll: ``gammon moves --json``."""
        board, state = position_in_variant(position, variant)
        return moves_report(board, dice_for(roll(dice), state), variant)

    @app.get("/api/eval")
    def evaluate(position: PositionText, ply: Ply = 0, variant: VariantName = "standard"):
        """Cubeless probabilities, cubeless and cubeful equity at 0..ply: ``gammon eval --json``."""
        board, state = position_in_variant(position, variant)
        return eval_report(analyst(variant), position, board, state, ply)

    @app.get("/api/hint")
    def hint(position: PositionText, dice: DiceText = None, ply: Ply = 1, variant: VariantName = "standard"):
        """Every legal play ranked by cubeful equity (EMG in a match): ``gammon hint --json``."""
        board, state = position_in_variant(position, variant)
        return hint_report(analyst(variant), position, board, state, dice_for(roll(dice), state), ply)

    @app.get("/api/cube")
    def cube(position: PositionText, ply: Ply = 2, variant: VariantName = "standard"):
        """No double / double, take / double, pass, with the equities (and MWC in a match): ``gammon cube --json``."""
        board, state = position_in_variant(position, variant)
        return cube_report(analyst(variant), position, board, state, ply)

    @app.post("/api/analyze")
    async def analyze(request: Request, name: Annotated[str, Query(max_length=255, description="the file's name")],
                      ply: Annotated[int, Query(ge=0, le=2)] = 0, no_cube: bool = False):
        """A whole match (the request body: a .mat or .sgf file, at most 1 MiB): ``gammon analyze --json``."""
        data = await read_upload(request)
        evaluator = await run_in_threadpool(analyst, "standard")  # the net gammon analyze loads
        return await run_in_threadpool(analyse_upload, data, name, evaluator, ply, not no_cube)

    @app.post("/api/games")
    def new_game(settings: NewGame):
        """A game against the bot: the snapshot at your first prompt (the bot may have moved first)."""
        return games.new(analyst(settings.variant), settings.length, settings.variant, settings.seed)

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
