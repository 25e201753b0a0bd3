"""``chessatron hw calibrate``: the table finds its own wiring, geometry and limits with the person's help."""
