"""Games as data: a game's record as a value (:mod:`.record`), written and read as PGN (:mod:`.pgn`) and in
the compact form of tiny chess computers (:mod:`.compact`); the crash-safe journal a session appends to
while it plays (:mod:`.journal`), and the saved-games folder (:mod:`.store`)."""
