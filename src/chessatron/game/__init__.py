"""The game: sessions played on the table, who plays them, what the person is told and what is kept.

The session's core is here, in layers, each calling only the ones below it: :mod:`.devices` (the state,
the machine and the devices) ← :mod:`.tablework` (the robot's work and the people's) ← :mod:`.seats` (the
players) ← :mod:`.setup` (new games and resumes) ← :mod:`.commands` (hints, takebacks, draws, the end)
← :mod:`.session` (the loop); beside them the clock (:mod:`.clock`), the tidying on a person's time
(:mod:`.tidying`), the keeper of a game played elsewhere too (:mod:`.referee`) and the runner the web page
drives (:mod:`.jobs`, :mod:`.requests`, :mod:`.runner`).

The rooms: :mod:`.players` (one module per kind of player), :mod:`.telling` (everything the person is
told), :mod:`.records` (the record, the journal, the saved games), :mod:`.engine` (Stockfish) and
:mod:`.ponder` (the engine and the magnet at work while a person thinks).
"""
