"""Apps as the tests play them: a client a protocol, written from the protocol's specification, the way an
app talks to a board (connect, read the position, show its move as that protocol's apps do)."""
