"""chessatron: a chess computer that moves its own pieces.

The package is layered; a human move walks sensors → recognition → game, a robot move game → planning →
G-code → gantry (:mod:`chessatron.sensors`, :mod:`chessatron.recognition`, :mod:`chessatron.game`,
:mod:`chessatron.planning`, :mod:`chessatron.grbl`, :mod:`chessatron.gantry`). The simulator
(:mod:`chessatron.sim`) stands in for every device, the command line (:mod:`chessatron.cli`) is on top; see
``docs/architecture.md``.
"""

from __future__ import annotations

__version__ = "0.1.0"
