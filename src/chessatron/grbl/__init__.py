"""Talk to GRBL 1.1: parse what it says, stream programs with character counting, drive it over any port.

* :mod:`~chessatron.grbl.motion`: GRBL's planner as a time model (no I/O; the planning core times its
  plans with it, so this package imports nothing of its own at import time);
* :mod:`~chessatron.grbl.codes`: what ``error:N`` and ``ALARM:N`` mean;
* :mod:`~chessatron.grbl.protocol`: every message GRBL 1.1 sends, as values (no I/O);
* :mod:`~chessatron.grbl.charcount`: character counting, the streaming protocol's bookkeeping (no I/O);
* :mod:`~chessatron.grbl.settings`: ``$$`` settings against a table layout, and the ones to flash (no I/O);
* :mod:`~chessatron.grbl.build`: the firmware's build (``$I``) against a table layout (no I/O);
* :mod:`~chessatron.grbl.homing`: how long the homing cycle takes, and the longest it can (no I/O);
* :mod:`~chessatron.grbl.handshake`: the connect handshake, which banner opens the session and whether
  ``$I`` and ``$$`` were answered line by line (no I/O);
* :mod:`~chessatron.grbl.waits`: every wait reads before it gives up; a host stall told from a silent
  board (no I/O);
* :mod:`~chessatron.grbl.wire`: bytes out and messages in over a pyserial port, the real-time commands
  and one line sent and answered; :mod:`~chessatron.grbl.stream_loop`: the streaming loop around the
  bookkeeping, through that wire; :mod:`~chessatron.grbl.link`: :class:`GrblLink`, the driver on top
  (connect, home, stream a program);
* :mod:`~chessatron.grbl.pty`: the simulated GRBL on a pseudo-terminal, for other programs;
* :mod:`~chessatron.grbl.guard`: what ``run`` refuses before anything moves (no I/O);
* :mod:`~chessatron.grbl.run`: run a program file with a progress bar (the ``run`` command).

Importing this package registers the ``sim://`` URL scheme with pyserial (it appends ``chessatron.sim``
to ``serial.protocol_handler_packages``, where :mod:`chessatron.sim.protocol_sim` lives), so
``serial.serial_for_url("sim://")`` and ``GrblLink("sim://")`` open the simulated GRBL.
"""

from __future__ import annotations

import serial

__all__ = ["register_sim_scheme"]

#: The package pyserial searches for ``protocol_sim``.
SIM_HANDLER_PACKAGE = "chessatron.sim"


def register_sim_scheme() -> None:
    """Let pyserial open ``sim://`` URLs (done on import; calling it again does nothing)."""
    if SIM_HANDLER_PACKAGE not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append(SIM_HANDLER_PACKAGE)


register_sim_scheme()
