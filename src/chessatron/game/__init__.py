"""Games as data: records in PGN and in the compact form of tiny chess computers (:mod:`.record`), the
crash-safe journal a session appends to while it plays (:mod:`.journal`), and the saved-games folder
(:mod:`.store`)."""
