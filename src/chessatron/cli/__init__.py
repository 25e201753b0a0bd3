"""The ``chessatron`` command: a module per command group, all registered on :func:`main`.

Every command-line contract written in an issue is kept exactly here; errors a user can cause end in a
one-line reason on stderr and a non-zero exit, never a traceback. Anything unexpected ends in one line
too, its traceback in the log file (:mod:`chessatron.logs`), or on stderr with ``--debug``.
"""

from __future__ import annotations

from . import analysis, config, eboard, games, hw, online, play, serve, simulate, training
from .common import EXIT_INTERNAL, EXIT_STOPPED, EXIT_USAGE
from .main import main

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_STOPPED",
    "EXIT_USAGE",
    "analysis",
    "config",
    "eboard",
    "games",
    "hw",
    "main",
    "online",
    "play",
    "serve",
    "simulate",
    "training",
]
