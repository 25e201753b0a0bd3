"""The reply starts before the move: while a person thinks, the robot's engine ponders and the magnet
waits where the robot's next drag will most likely begin (:class:`~.ponderer.Ponderer`, over the pure
:mod:`.model`; the magnet's travels: :mod:`.magnet`).

While the person at the table (or at the keyboard, or on the web page) thinks, the robot's engine asks itself
which moves they are likely to make (a short search of several lines at full strength,
:meth:`~chessatron.game.engine.player.EnginePlayer.predict`, weighed by :func:`~.model.likely_moves_of`) and,
most likely first, searches its own reply to each exactly as it would once the move is made
(:meth:`~..engine.player.EnginePlayer.foresee`); then it evaluates each position for the watchers
(:meth:`~..engine.player.EnginePlayer.analyse_ahead`). The empty magnet goes, at rapid, to the node that makes
the expected travel to the robot's first drag after the person's move shortest (:func:`~.model.waiting_spot`,
each likely move weighed by its likelihood). For a person at the board that drag is the reply's: each reply
found is planned on the table as the person's move would leave it, and a piece lifted narrows the replies to
wait for to those to that piece's moves. A typed or clicked move the robot carries out itself, first: the
magnet waits where the likely moves begin, and what the person gives away of their move before sending it
narrows those likewise: the piece picked up on the web page (:meth:`~.ponderer.Ponderer.picked`) or the line
typed so far at the prompt (:meth:`~.ponderer.Ponderer.typed`: ``e2``, ``Nf``, ``Nf3`` before Enter;
:class:`~..players.notation.MoveSpellings` tells which moves it may become). The magnet then waits where the
likely moves that fit begin (a move's first drag is its victim's for a capture), or where every move that fits
begins when the engine foresaw none of them; a line that fits no move changes nothing.

When the person's move is one of those searched (a ponder hit) the engine answers at once, and at the
board the magnet sets off for the reply's first drag at the commit, while the move must still stand
(the hold, :func:`~chessatron.game.seats.reply_hold_s`, is kept: the person may still correct it);
otherwise (a miss) the engine searches as it always did, and at the board the magnet sets off for the first
drag of the move the search has settled on (:class:`~.model.Heading`: a line that keeps its first move for a
few depths on end, :meth:`~.ponderer.Ponderer.searching`) while the search goes on; a search that changes
its mind later costs the travel begun. Nothing waits for the engine's view of the position after a move made
at the board: what was evaluated ahead is shown, else the answer's own search is the engine's view.

Only the empty magnet moves, in one ``G0`` between the robot's plans, only where it was last sent
(:mod:`.magnet`). Moving the empty magnet under a person's hand is safe: it is under the board, and off;
the sensors do not see it.
"""
