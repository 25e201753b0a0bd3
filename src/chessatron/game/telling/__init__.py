"""What the person is told: the live state every watcher reads (:mod:`.live`), the game's events in words
(:mod:`.events`), the robot's work in words (:mod:`.words`), the words said aloud (:mod:`.speech`), why a
typed move is refused (:mod:`.reasons`, its sentences in :mod:`.reason_words`), the chess words they share
(:mod:`.names`), the engine's view (:mod:`.evaluation`), the display and the
buzzer (:mod:`.announcer`), the LEDs of a game the robot plays for everyone (:mod:`.guide`), the
terminal's picture of a game (:mod:`.screen`), its live view (:mod:`.view`) and its prompt
(:mod:`.lineinput`)."""
