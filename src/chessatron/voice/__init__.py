"""The voice player: moves said aloud, recognised offline, read back and confirmed before the robot
moves a piece.

* :mod:`.words` — the words a player may say and what each stands for;
* :mod:`.grammar` — what may be said in a position, as the grammars the recogniser listens with, and
  :mod:`.meaning` — what the words heard mean on the board (both pure: python-chess only);
* :mod:`.recognizer` — pocketsphinx, the only module that imports it (``pip install 'chessatron[voice]'``);
* :mod:`.microphone` — the sound card's input (sounddevice), its simulator, or none, chosen by URL;
* :mod:`.player` — the conversation: :class:`~.player.VoiceMover`;
* :mod:`.audio` — PCM as the recogniser takes it.

:mod:`chessatron.sim.voice` is a simulated person who speaks through espeak-ng.
"""
