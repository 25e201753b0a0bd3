"""The web page: watch, play and set up the table from a browser or a phone (``chessatron serve``).

:mod:`.app` is the Starlette app (the JSON API under ``/api/v1`` and the static page), with the saved
games' routes in :mod:`.saved` and the training's in :mod:`.training`; :mod:`.feed` the live WebSocket
feed, :mod:`.guard` the token, Host and Origin checks, :mod:`.validate` the requests, :mod:`.pictures` the
board and table SVGs of the API, and :mod:`.server` runs it all with uvicorn. The page itself is plain
HTML, CSS and JavaScript modules in ``static/`` around lichess's board, chessground, which ``make``
installs from npm into ``static/vendor/``: no build step, nothing from the internet.

Needs the ``web`` extra (``pip install 'chessatron[web]'``).
"""
