"""Analyses too long for one request, as jobs the page polls: the web board's rollouts.

A job is started on the analysis threads and answered at once with its id; the page asks for it by id
and sees the games played so far, then the result. The table holds at most ``MAX_JOBS`` jobs, running,
waiting or finished: a finished one is kept ``KEEP_SECONDS`` for the page to fetch, or less when a new
job needs its place, and a new job past the limit while every one is still to finish is refused, so
neither memory nor the analysis threads' queue grows with the requests.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable

from gammon.engine.errors import GammonError

KEEP_SECONDS = 300
MAX_JOBS = 8
ABANDONED_SECONDS = 30  # a running job nobody has asked about for this long stops (the page polls every 0.5 s)


class NoSuchJob(GammonError):
    """A job id the table does not hold (never made, dropped after its result waited, or the server restarted)."""


class TooManyJobs(GammonError):
    """Every place in the table is taken by a job still to finish."""


class JobStopped(GammonError):
    """A job given up: the server is stopping, or nobody has asked about it for ABANDONED_SECONDS."""


class Job:
    """One analysis of ``games_total`` games, run by :meth:`run` on one thread and read from others."""

    def __init__(self, games_total: int, stopping: threading.Event, polled: bool = True):
        self.id = secrets.token_urlsafe(12)
        self.games_total = games_total
        self.stopping = stopping  # the table's: set when the server stops
        self.polled = polled  # followed by polling (else a request waits for it): unasked, it is given up
        self.asked = time.monotonic()  # when the page last asked for the job
        self.games_done = 0  # only the analysis thread adds to it
        self.result: dict | None = None
        self.failure: Exception | None = None  # raised again to whoever asks for the job
        self.finished: float | None = None  # time.monotonic() at the end; set last, so a finished job has its answer

    def run(self, work: Callable[[Callable[[int], None]], dict]) -> None:
        """``work(progress)``, told of each n games done by ``progress(n)``; its answer, or its failure, kept."""
        try:
            self.result = work(self.count)
        except Exception as exc:  # a refusal or a bug: the next poll raises it, as a request would have
            self.failure = exc
        finally:
            self.finished = time.monotonic()

    def count(self, games: int) -> None:
        """The work's progress; it also stops the work of a job given up (JobStopped), at its next report."""
        self.games_done += games
        if self.stopping.is_set():
            raise JobStopped("the server is stopping")
        if self.polled and time.monotonic() - self.asked > ABANDONED_SECONDS:
            raise JobStopped(f"nobody asked for this rollout for {ABANDONED_SECONDS} s: it was stopped")

    def snapshot(self) -> dict:
        """``done``, ``games_done``, ``games_total``, and once done, ``result``; a failed job raises its failure."""
        self.asked = time.monotonic()
        if self.failure is not None:
            raise self.failure
        done = self.finished is not None
        return {"id": self.id, "done": done, "games_done": self.games_done, "games_total": self.games_total,
                **({"result": self.result} if done else {})}


class JobTable:
    """The jobs by id: at most ``limit``, a finished one dropped ``keep_seconds`` after it finished."""

    def __init__(self, limit: int = MAX_JOBS, keep_seconds: float = KEEP_SECONDS):
        self.limit = limit
        self.keep_seconds = keep_seconds
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self.stopping = threading.Event()  # set once: every running job stops at its next progress report

    def new(self, games_total: int, polled: bool = True) -> Job:
        """A job to run, in the table; refused (TooManyJobs) while ``limit`` jobs are still to finish. ``polled``
        False: a request waits for its answer, so nobody polls it."""
        with self._lock:
            self._drop_finished()
            if len(self._jobs) >= self.limit:
                raise TooManyJobs(f"{self.limit} rollouts are running or waiting; try again when one has finished")
            job = Job(games_total, self.stopping, polled)
            self._jobs[job.id] = job
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NoSuchJob(f"no rollout {job_id[:40]!r} here: its result was dropped or the server restarted; "
                            "start it again")
        return job

    def _drop_finished(self) -> None:
        """Drop the jobs finished over ``keep_seconds`` ago, and with the table full, the one finished first."""
        finished = sorted((job for job in self._jobs.values() if job.finished is not None), key=lambda j: j.finished)
        for job in finished:
            if time.monotonic() - job.finished > self.keep_seconds or len(self._jobs) >= self.limit:
                del self._jobs[job.id]
