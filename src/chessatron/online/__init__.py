"""Online play: games on lichess (or any server that speaks its API), the robot moving the opponent's
pieces.

* :mod:`.model` — the API's streams as values, pure functions (the game as the server tells it, how it
  ended, its clocks).
* :mod:`.client` — the API through berserk: one request at a time, HTTP 429, retries, our errors.
* :mod:`.feed` — the game and event streams followed in threads, reconnecting and catching up.
* :mod:`.opponent` — the opponent as a mover and the referee that keeps the journal and the server in step.
* :mod:`.table` — one game on the table: found, played with the session's loop, ended as the server says.
* :mod:`.token` — the personal API token: from ``$LICHESS_TOKEN`` or kept readable by this user only.
* :mod:`.command` — ``chessatron online``.

Needs the ``online`` extra (``pip install 'chessatron[online]'``: berserk).
"""
