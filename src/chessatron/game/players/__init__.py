"""The players: what every player is to a session (:mod:`.base`: the :class:`~.base.Mover` protocol and
what ``choose`` answers), who plays a side as the command line says it (:mod:`.spec`), and one module
for each kind of player: a person typing at the terminal (:mod:`.keyboard`, reading moves as
:mod:`.notation` says and answering the board's questions with :mod:`.answers`), a person at the board
seen through the sensors (:mod:`.board`), the buttons beside it (:mod:`.buttons`, over the pure
:mod:`.cursor`), the engine (:mod:`.engine`), a PGN's moves (:mod:`.script`) and the web page
(:mod:`.web`). The voice player is :mod:`chessatron.voice.player`; an online game's opponent,
:mod:`chessatron.online.opponent`.
"""
