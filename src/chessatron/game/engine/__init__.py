"""The chess engine (Stockfish, through python-chess): which engine and how strong (:mod:`.settings`), the UCI
process that chooses, hints and evaluates and survives crashes (:mod:`.player`), and its searches started
ahead of time (:mod:`.foresight`). The engine as a player of a game is
:class:`~chessatron.game.players.engine.EngineMover`; its thinking on a person's time,
:mod:`chessatron.game.ponder`.
"""
