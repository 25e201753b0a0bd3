"""``python -m chessatron.cli``: the ``chessatron`` command."""

from . import main

main()
