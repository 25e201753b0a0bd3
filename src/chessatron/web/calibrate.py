"""Calibration from the web page: the steps of ``chessatron hw calibrate`` for a maker at a phone next to
the table. Its own page (``/calibrate``, ``static/calibrate.*``) and routes beside the page's API
(:mod:`.app` adds them):

=========================================  ==========================================================
``GET  /calibrate``                        the calibration page
``GET  /api/v1/calibrate``                 what the page shows: the parts, whether one runs, the
                                           current ``step`` (``{"id", "kind": "tell"|"ask"|"square"|
                                           "nudge", "text", "answers", "answered"}``), what was said
                                           before it, the squares the simulated LEDs light, and the
                                           ``outcome`` (``{"state": "running"|"done"|"stopped"|
                                           "failed", "lines"}``: what each part wrote)
``POST /api/v1/calibrate/start``           ``{"part": "sensors"|"leds"|"board"|"magnet"|"all"}``
                                           (409 while a game or a set-up runs on the table, or a
                                           calibration already does; the runner lends its machine)
``POST /api/v1/calibrate/answer``          ``{"step": id, "answer": "ready"|"e4"|null|"left"…}``
                                           (409: that step was answered or is gone; 422: no answer
                                           to it)
``POST /api/v1/calibrate/stop``            stop: the part under way writes nothing
=========================================  ==========================================================

The part runs in a worker thread and talks to the person through :class:`WebPerson`: each thing it
says or asks becomes the current step, and a question waits for the page's answer. While a calibration
runs, the page's requests that would start work on the table (a game, a set-up, puzzles, settings) are
refused (:meth:`CalibrationApi.refusing`), as a calibration is while the table works.

The texts are made in the server's language, in the worker thread, as ``hw calibrate`` makes them.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal

import chess
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ..calibrate.person import Nudge, Person, Stopped
from ..config import Config
from ..errors import ChessatronError
from ..game.jobs import BusyError
from ..game.runner import GameRunner
from ..i18n import _
from ..ports import RGB
from .calibrate_bench import PART_TITLES, WebBench
from .validate import BadRequestError

__all__ = ["CalibrationApi", "Part", "WebPerson", "calibration_routes"]

LOGGER = logging.getLogger(__name__)

Kind = Literal["tell", "ask", "square", "nudge"]
#: A part as the page runs it: with the person, the devices' stack; the lines to show at its end.
Part = Callable[[Person, ExitStack], list[str]]
NUDGES: Final[tuple[Nudge, ...]] = ("left", "right", "up", "down", "finer", "coarser", "done")
#: How many of the things said before the current step the page shows.
SAID_KEPT: Final = 6

Endpoint = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class Step:
    """What the page shows now: something said (``tell``) or asked, with the answers it takes."""

    id: int
    kind: Kind
    text: str
    answers: tuple[str, ...] = ()
    answered: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "answers": list(self.answers),
            "answered": self.answered,
        }


class StaleAnswerError(BusyError):
    """An answer to a step that was answered already (another phone, a page behind) or is gone."""


class NotAnAnswerError(BadRequestError):
    """An answer the step does not take."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 422)


class WebPerson:
    """A :class:`~chessatron.calibrate.person.Person` at the page: what the part says and asks becomes the
    current :class:`Step` (thread-safe), a question waits until :meth:`answer` gives it one it takes, and
    :meth:`stop` makes the part's next word (or the question it waits on) raise
    :class:`~chessatron.calibrate.person.Stopped`."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._step: Step | None = None
        self._said: collections.deque[str] = collections.deque(maxlen=SAID_KEPT)
        self._given: tuple[str | None] | None = None
        self._stopped = False
        self._count = 0

    # --- the part's side ----------------------------------------------------------------------------

    def tell(self, text: str) -> None:
        with self._changed:
            self._check()
            self._show("tell", text, ())

    def ask(self, question: str, answers: Sequence[str]) -> str:
        given = self._wait("ask", question, tuple(answers))
        assert given is not None
        return given

    def ask_square(self, question: str) -> chess.Square | None:
        given = self._wait("square", question, ("none",))
        return None if given is None else chess.parse_square(given)

    def nudge(self, question: str) -> Nudge:
        given = self._wait("nudge", question, NUDGES)
        return next(n for n in NUDGES if n == given)

    def _check(self) -> None:
        if self._stopped:
            raise Stopped(_("stopped on the page"))

    def _show(self, kind: Kind, text: str, answers: tuple[str, ...]) -> Step:
        if self._step is not None and self._step.kind == "tell":
            self._said.append(self._step.text)
        self._count += 1
        self._step = Step(self._count, kind, text, answers)
        self._changed.notify_all()
        return self._step

    def _wait(self, kind: Kind, question: str, answers: tuple[str, ...]) -> str | None:
        with self._changed:
            self._check()
            self._show(kind, question, answers)
            self._given = None
            while self._given is None and not self._stopped:
                self._changed.wait()
            self._check()
            assert self._given is not None
            (given,) = self._given
            self._said.append(question)
            return given

    # --- the page's side ----------------------------------------------------------------------------

    def answer(self, step_id: int, given: object) -> None:
        """The page's answer to step ``step_id``. Raises :class:`StaleAnswerError` when that step is not
        waiting for one, :class:`NotAnAnswerError` for an answer it does not take."""
        with self._changed:
            step = self._step
            if step is None or step.id != step_id or step.kind == "tell" or step.answered or self._stopped:
                raise StaleAnswerError(
                    _(
                        "that question was answered already, or the table has moved on; answer the one "
                        "shown now"
                    )
                )
            answer = _taken(step, given)
            self._given = (answer,)
            self._step = replace(step, answered=True)
            self._changed.notify_all()

    def stop(self) -> None:
        """The person stopped: the part stops at its next word to them."""
        with self._changed:
            self._stopped = True
            self._changed.notify_all()

    def shown(self) -> tuple[Step | None, list[str]]:
        """The current step and what was said before it, oldest first."""
        with self._changed:
            return self._step, list(self._said)


def _taken(step: Step, given: object) -> str | None:
    """``given`` as ``step`` takes it (an answer as the step spelled it, a square's name, None for no
    square); raises :class:`NotAnAnswerError`."""
    if step.kind == "square":
        if given is None or given == "none":
            return None
        if isinstance(given, str) and given.strip().lower() in chess.SQUARE_NAMES:
            return given.strip().lower()
        raise NotAnAnswerError(
            _("{given!r} is not a square: tap one on the board, or Not under the board").format(given=given)
        )
    if isinstance(given, str):
        for answer in step.answers:
            if given.strip().lower() == answer.lower():
                return answer
    raise NotAnAnswerError(
        _("{given!r} is not an answer here; answer one of: {answers}").format(
            given=given, answers=", ".join(step.answers)
        )
    )


class Calibration:
    """One calibration from the page: ``parts`` run in turn in a worker thread with ``person``, each
    written as it ends (``written`` is called then); what each wrote is kept in :attr:`lines`."""

    def __init__(self, parts: Sequence[tuple[str, Part]], written: Callable[[], None] | None = None) -> None:
        self.person = WebPerson()
        self.parts = list(parts)
        self.written = written
        self.part: str | None = None
        self.state: Literal["running", "done", "stopped", "failed"] = "running"
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="chessatron-calibrate", daemon=True)

    def _add(self, *lines: str) -> None:
        with self._lock:
            self.lines.extend(lines)

    def _run(self) -> None:
        for name, part in self.parts:
            self.part = name
            try:
                with ExitStack() as stack:
                    lines = part(self.person, stack)
            except Stopped:
                self._add(_("Stopped: nothing of this part was written; run it again at any time."))
                self.state = "stopped"
                return
            except ChessatronError as exc:
                self._add(str(exc))
                self.state = "failed"
                return
            except Exception as exc:  # never a traceback in front of the person: the log has it
                LOGGER.exception("the calibration failed")
                self._add(_("The calibration failed ({error!r}); the log says more.").format(error=exc))
                self.state = "failed"
                return
            self._add(*lines)
            if self.written is not None:
                self.written()
        self.state = "done"

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def to_json(self) -> dict[str, Any]:
        step, said = self.person.shown()
        with self._lock:
            lines = list(self.lines)
        return {
            "part": self.part,
            "step": step.to_json() if step is not None and self.running else None,
            "said": said,
            "outcome": {"state": self.state, "lines": lines},
        }


class CalibrationApi:
    """The calibration's endpoints over ``runner`` (None: a page that only watches) and the machine config
    at ``config_path``; ``parts`` (tests) replaces the table's own parts
    (:class:`.calibrate_bench.WebBench`)."""

    def __init__(
        self,
        runner: GameRunner | None,
        config_path: Path | None,
        static: Path,
        read_json: Callable[[Request], Awaitable[object]],
        *,
        parts: dict[str, Part] | None = None,
    ) -> None:
        self.runner = runner
        self.config_path = config_path
        self.static = static
        self._read = read_json
        self.calibration: Calibration | None = None
        self._bench: WebBench | None = None
        #: The parts to run instead of the table's own (tests of the page).
        self.given_parts = parts
        # a calibration and the work the page starts on the table are started one at a time
        self._starting = asyncio.Lock()

    def bench(self) -> WebBench | None:
        if self._bench is None and self.config_path is not None and self.runner is not None:
            wiring = (
                self.runner.state_path.with_name("simulator-wiring.json") if self.runner.simulated else None
            )
            runner = self.runner
            self._bench = WebBench(self.config_path, wiring, lambda: runner.session.table)
        return self._bench

    def parts(self) -> dict[str, Part]:
        """The parts the page can run here, in order."""
        if self.given_parts is not None:
            return self.given_parts
        bench = self.bench()
        if bench is None:
            return {}
        found: dict[str, Part] = {}
        for name in PART_TITLES:

            def part(
                person: Person, stack: ExitStack, name: str = name, bench: WebBench = bench
            ) -> list[str]:
                return bench.run_part(name, person, stack)

            found[name] = part
        return found

    def running(self) -> bool:
        calibration = self.calibration
        return calibration is not None and calibration.running

    def refusal(self) -> str | None:
        """Why a calibration cannot start now; None when it can."""
        if self.runner is None:
            return _("this page only watches; start `chessatron serve` to calibrate the table from a page")
        if self.config_path is None:
            return _("this server was started without a config file to write; start it with --config")
        if self.running():
            return _("a calibration is under way; answer it or stop it first")
        if self.runner.busy:
            return _(
                "the table is busy with a game or a set-up; stop it first (Stop game on the main page) "
                "or wait for its end"
            )
        return None

    # --- the endpoints -----------------------------------------------------------------------------

    async def page(self, request: Request) -> Response:
        return FileResponse(self.static / "calibrate.html", media_type="text/html")

    async def state(self, request: Request) -> Response:
        calibration = self.calibration
        bench = self._bench
        lit: dict[str, RGB] = bench.lit_squares() if bench is not None and self.running() else {}
        return JSONResponse(
            {
                "parts": [{"name": name, "title": _(PART_TITLES.get(name, name))} for name in self.parts()],
                "running": self.running(),
                "refusal": self.refusal(),
                "lit": {square: list(colour) for square, colour in lit.items()},
                **(
                    calibration.to_json()
                    if calibration is not None
                    else {"part": None, "step": None, "said": [], "outcome": None}
                ),
            }
        )

    async def start(self, request: Request) -> Response:
        body = await self._read(request)
        if not isinstance(body, dict) or set(body) - {"part"} or not isinstance(body.get("part"), str):
            raise BadRequestError(_('send {"part": "sensors"}, a part of the table or "all"'))
        wanted = str(body["part"])
        parts = self.parts()
        if wanted != "all" and wanted not in parts:
            raise BadRequestError(
                _("{part!r} is no part the page can calibrate here; choose one of: {parts}").format(
                    part=wanted, parts=", ".join([*parts, "all"])
                ),
                422,
            )
        chosen = [(name, part) for name, part in parts.items() if wanted in (name, "all")]
        async with self._starting:
            refusal = self.refusal()
            if refusal is not None:
                raise BusyError(refusal)
            if self.given_parts is None and self.runner is not None:
                # the parts open the machine themselves: the runner's next job opens it again
                self.runner.lend_machine()
                bench = self.bench()
                if bench is not None:
                    bench.begin()
            self.calibration = Calibration(chosen, self._written)
            self.calibration.thread.start()
        return JSONResponse({"accepted": "calibrate", "parts": [name for name, _part in chosen]}, 202)

    def _written(self) -> None:
        """A part wrote the config: the next game plays with it."""
        if self.runner is not None and self.config_path is not None:
            self.runner.use_config(Config.load(self.config_path))

    async def answer(self, request: Request) -> Response:
        body = await self._read(request)
        if not isinstance(body, dict) or set(body) != {"step", "answer"} or not isinstance(body["step"], int):
            raise BadRequestError(_('send {"step": its id, "answer": the answer}'))
        calibration = self.calibration
        if calibration is None or not calibration.running:
            raise StaleAnswerError(_("no calibration is under way; start one first"))
        calibration.person.answer(body["step"], body["answer"])
        return JSONResponse({"accepted": "answer"})

    async def stop(self, request: Request) -> Response:
        await self._read(request)
        calibration = self.calibration
        if calibration is None or not calibration.running:
            raise BusyError(_("no calibration is under way; there is nothing to stop"))
        calibration.person.stop()
        return JSONResponse({"accepted": "stop"}, 202)

    def refusing(self, endpoint: Endpoint) -> Endpoint:
        """``endpoint`` (a POST that starts work on the table) refused while a calibration runs."""

        async def wrapper(request: Request) -> Response:
            if request.method != "POST":  # reading goes on as ever
                return await endpoint(request)
            async with self._starting:
                if self.running():
                    raise BusyError(
                        _(
                            "the table is being calibrated; stop the calibration first (Stop on the "
                            "Calibrate page) or wait for its end"
                        )
                    )
                return await endpoint(request)

        return wrapper


def calibration_routes(
    api: CalibrationApi, answering: Callable[[Endpoint], Endpoint], prefix: str
) -> list[Route]:
    """The calibration page and its API routes (``answering`` turns errors into answers, as the page's)."""
    return [
        Route("/calibrate", api.page, methods=["GET"]),
        Route(prefix + "/calibrate", answering(api.state), methods=["GET"]),
        Route(prefix + "/calibrate/start", answering(api.start), methods=["POST"]),
        Route(prefix + "/calibrate/answer", answering(api.answer), methods=["POST"]),
        Route(prefix + "/calibrate/stop", answering(api.stop), methods=["POST"]),
    ]
