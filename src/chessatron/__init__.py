"""chessatron: a chess computer that moves its own pieces.

The package is layered: pure logic at the centre (:mod:`chessatron.layout`, :mod:`chessatron.table`,
:mod:`chessatron.paths`, :mod:`chessatron.planner`, :mod:`chessatron.gcode`, :mod:`chessatron.motion`),
the simulator (:mod:`chessatron.twin`) at the edge, the command line (:mod:`chessatron.cli`) on top.
"""

from __future__ import annotations

__version__ = "0.1.0"
