"""Training at the table: puzzles set up by the robot, your own mistakes, a rating, reviews of games.

The package's rooms, from the chess to the table:

- :mod:`.judgement`: winning chances (lichess's model) and the ``?!``/``?``/``??`` of a move;
- :mod:`.analysis`: Stockfish through a game, two lines a position;
- :mod:`.annotation`: a game's PGN annotated, and the same as JSON for the web page;
- :mod:`.review`: a saved game reviewed, the review kept;
- :mod:`.puzzle`: a puzzle as lichess defines it; :mod:`.lichess`: lichess's puzzle CSV (plain or .zst);
- :mod:`.mining`: puzzles from games (the criterion); :mod:`.starter`: the set shipped with the package;
- :mod:`.rating`: the person's Glicko-2 puzzle rating; :mod:`.store`: puzzles, attempts, reviews (SQLite);
- :mod:`.table`: puzzles played on the table; :mod:`.watcher`: a move that throws the game away, said
  before the engine answers.
"""
