"""The gantry at work: the robot carrying out plans over a GRBL link (:mod:`.robot`), the host magnet a
servo or relay switches (:mod:`.magnet`), and the sensors' check that every piece followed the magnet
(:mod:`.verification`)."""
