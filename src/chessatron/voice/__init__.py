"""The voice player: moves said aloud, recognised offline, read back and confirmed before the robot
moves a piece.

* :mod:`.grammar` — what may be said in a position, and what the words mean (pure: python-chess only);
* :mod:`.recognizer` — pocketsphinx, the only module that imports it (``pip install 'chessatron[voice]'``);
* :mod:`.microphone` — the sound card's input (sounddevice), its simulator, or none, chosen by URL;
* :mod:`.player` — the conversation: :class:`~.player.VoiceMover`;
* :mod:`.audio` — PCM as the recogniser takes it.

:mod:`chessatron.sim.voice` is a simulated person who speaks through espeak-ng.
"""
