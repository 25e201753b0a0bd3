"""A simulated GRBL 1.1 on a serial port: the firmware, byte for byte, driving the simulated world's twin.

:class:`SimGrbl` is a pyserial-compatible object (``read``, ``write``, ``in_waiting``, ``timeout``,
``reset_input_buffer``, ``close``, ``is_open``…) with GRBL 1.1 behind it:

* the banner at power-up and after a soft reset (control-x), ``ok`` and ``error:N`` for every line,
  ``ALARM:N``, real-time ``?`` status reports (``<Idle|MPos:…|Bf:15,128|FS:…>``), ``!`` feed hold, ``~``
  resume, and the ``$`` commands a sender uses: ``$$``, ``$N=value``, ``$G``, ``$I`` (the build of GRBL
  for this table: ``[OPT:VCZ,15,128]``, ``C`` exactly when the layout is Core-XY), ``$#``, ``$N``, ``$H``,
  ``$X``, ``$J=`` (``$C``, ``$SLP`` and ``$RST`` answer ``error:3``); what a line means is
  :mod:`~chessatron.sim.grbl.parser`'s business, this module runs it;
* the lock: with homing on (``$22=1``) it boots in the alarm state, and after any alarm it stays there
  (a soft reset included) until ``$H`` or ``$X``, refusing g-code with ``error:9``;
* a rejected line is not run, but the lines behind it in the receive buffer are, as on the firmware;
* a 128-byte receive buffer (bytes beyond it are lost, as on the real board: the host must count
  characters) and a 15-block planner: a line leaves the buffer when the parser is free, a motion line is
  answered once its block is queued, and a line that switches the spindle or coolant, dwells (``G4``) or
  ends the program waits until every queued block has run, as GRBL's ``protocol_buffer_synchronize``
  does;
* motion timed with GRBL's planner model (:func:`chessatron.grbl.motion.plan_run`): a block starts when the
  planner is full, when a sync command waits behind it, or when no new line has come for
  ``idle_grace_s`` (then it plans to stop at the last block it knows, as a starved GRBL does). Time runs
  ``speed`` times faster than the wall clock, or with ``speed=None`` as fast as the host feeds it; either
  way :attr:`SimGrbl.machine_s` counts *machine* seconds, to compare with the planner's prediction. Every
  stop (the last block of a run done) costs the step idle delay ``$1`` (none at ``$1=255``), during which
  nothing else runs, as GRBL's ``st_go_idle`` holds everything up;
* homing (``$H``) as GRBL 1.1h built for this table runs it (:mod:`chessatron.grbl.homing`: X's cycle,
  then Y's, each approach, pull-off, locate, pull-off at ``$25``/``$24``, with the ``$26`` debounce), and
  as silent: no ``?`` is answered while it homes, the ones that came get a single ``<Home|…>`` report as
  the cycle ends, before its ``ok``; a feed hold is ignored, a soft reset raises ``ALARM:6``;
* G-code as this table uses it: G0, G1, G4, G17, G20/G21, G54, G90/G91, G94, M2/M30, M3/M4/M5, M8/M9
  (other codes answer ``error:20``, as they would on a GRBL built without them); soft limits (``$20=1``)
  check targets against the layout's envelope (machine coordinates are the layout's, as with
  ``HOMING_FORCE_SET_ORIGIN``): a g-code target outside raises ``ALARM:2``, a jog answers ``error:15``.

Every line runs through the world's twin (``world.twin.run([line], finish=False)`` under
``world.lock``) when it physically happens: a motion line when its block has run, others when GRBL
executes them, so the twin's magnet drags the pieces and an alarm leaves them where the machine stopped.

Faults (:class:`~chessatron.sim.grbl.faults.SimFaults` given to the constructor or to
:meth:`SimGrbl.inject`, or the methods :meth:`SimGrbl.raise_alarm`, :meth:`SimGrbl.pull_cable`,
:meth:`SimGrbl.freeze`, :meth:`SimGrbl.power_cycle`) make it misbehave the ways hardware does, a late
boot among them (the banner after a delay, a soft reset sent meanwhile answered after it); and the host
can be stalled (:meth:`SimGrbl.stall_host`, or ``host_stall_s`` inside the link's own reads). The
recorder: :attr:`SimGrbl.received` (every line as received), :attr:`SimGrbl.resets_received`,
:attr:`SimGrbl.flags` (protocol misuse by the host: ``\\r`` line ends, buffer overruns) and
:meth:`SimGrbl.assert_clean`.

The rooms: :mod:`.firmware` (the port, real-time commands, parser and ``$`` commands),
:mod:`.machine` (state, planner, executor, alarms), :mod:`.parser` (what a line means), :mod:`.faults`
(misbehaving the ways hardware does) and :mod:`.host` (by URL; the servo layout's host magnet).
"""

from .faults import SimFaults
from .firmware import SimGrbl
from .host import SimHostMagnet, sim_grbl_for_url, sim_grbl_options
from .parser import PLANNER_BLOCKS

__all__ = ["PLANNER_BLOCKS", "SimFaults", "SimGrbl", "SimHostMagnet", "sim_grbl_for_url", "sim_grbl_options"]
