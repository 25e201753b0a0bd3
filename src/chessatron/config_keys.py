"""What every key of the machine config means: its kind, its default and a few lines of documentation,
for the web page's settings (:mod:`chessatron.config_write` writes them) and ``docs/settings.md``.

One entry a key, in the order the commented default (``chessatron config init``) lists them; the keys
themselves are :data:`chessatron.config.KEYS` and :data:`~chessatron.config.TOP_KEYS` (a test checks that
every one of them is documented here and nothing else). Pure data: nothing is read or checked here, the
checker is :meth:`chessatron.config.Config.from_text`, the one ``chessatron config check`` uses.

>>> KEY_OF["grbl.baudrate"].default
115200
>>> [key.name for key in CONFIG_KEYS if key.section == "buzzer"]
['url', 'muted']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from .config_eboard import EBOARD_PROTOCOLS
from .config_player import BOARD_LOOKS
from .i18n import LANGUAGES, N_

__all__ = ["CONFIG_KEYS", "KEY_OF", "ConfigKey", "KeyKind"]

#: How a key's value is written: a device URL, a file path, true/false, a whole number, a number, a web
#: address, one of the words its examples list, a line of text (a name), an engine level.
KeyKind = Literal["url", "path", "bool", "int", "number", "http", "choice", "text", "level"]


@dataclass(frozen=True)
class ConfigKey:
    """One key of the config file: ``[section] name`` (``section`` empty for a key before the first
    section), how its value is written, its default (None: unset, which :attr:`doc` explains) and what
    it does, with ``examples`` of values people use. :attr:`doc` is English, marked for translation: show
    it as ``_(key.doc)`` (:func:`chessatron.i18n._`)."""

    section: str
    name: str
    kind: KeyKind
    default: str | int | float | bool | None
    doc: str
    examples: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """``"grbl.url"``; ``"layout"`` for a key before the first section."""
        return f"{self.section}.{self.name}" if self.section else self.name

    @property
    def title(self) -> str:
        """As the file writes it: ``[grbl] url``, ``layout``."""
        return f"[{self.section}] {self.name}" if self.section else self.name


CONFIG_KEYS: Final[tuple[ConfigKey, ...]] = (
    ConfigKey(
        "",
        "layout",
        "path",
        None,
        N_(
            "The table layout: a TOML file describing the cells, the capture zones, the reserve and the "
            "machine (a path relative to this file, or absolute). Unset: the classic 12 x 10 table. The "
            "table's pieces follow the layout, so a new one applies when `chessatron serve` starts again."
        ),
        ("table.toml",),
    ),
    ConfigKey(
        "player",
        "name",
        "text",
        None,
        N_(
            "Your name, as the games give it: in the saved games' PGN (White or Black) and beside the board "
            "on the page, for the side played by a person here (at the keyboard, the board, the page, the "
            "buttons or by voice) when the other side is not a person too. Unset: the way you play is "
            "named (keyboard, web page). `chessatron play --name` gives another for one game."
        ),
        ("Ann",),
    ),
    ConfigKey(
        "player",
        "level",
        "level",
        None,
        N_(
            "The engine's level when a game names none (play --black engine, or the page's level left "
            "empty): a skill 0 to 20, an Elo like 1500elo, options such as 8:depth=12. Unset: its full "
            "strength."
        ),
        ("5", "1500elo"),
    ),
    ConfigKey(
        "player",
        "board",
        "choice",
        "brown",
        N_(
            "The colours of the web page's boards: brown (chessground's own), blue, green or grey. The "
            "pieces are chessground's cburnett set, the one it ships."
        ),
        BOARD_LOOKS,
    ),
    ConfigKey(
        "player",
        "sound",
        "bool",
        True,
        N_(
            "False: the web page makes no sound and the buzzer is silent (a browser whose Sound button was "
            "pressed keeps its own choice; saving this from a page sets that page's too). The speech has its "
            "own [speech] muted: a player who cannot see a display needs it."
        ),
    ),
    ConfigKey(
        "player",
        "language",
        "choice",
        None,
        N_(
            "The language of the table's words: the terminal, the status display, the speech, the buttons' "
            "menu and the web page (unless a browser chooses its own): en, de, fr, es, nl or it. Unset: the "
            "system's language (LANG); `--lang` chooses another for one command."
        ),
        tuple(LANGUAGES),
    ),
    ConfigKey(
        "grbl",
        "url",
        "url",
        "sim://",
        N_(
            "The gantry's GRBL board: a serial port, a network bridge, or the simulator. none:// is a board "
            "without a robot: the LEDs show the engine's moves, the players make them and set the board up, "
            "the sensors confirm."
        ),
        ("/dev/ttyUSB0", "/dev/ttyACM0", "socket://192.168.1.30:23", "sim://", "none://"),
    ),
    ConfigKey("grbl", "baudrate", "int", 115200, N_("The serial line's speed; GRBL 1.1 talks at 115200.")),
    ConfigKey(
        "grbl",
        "home",
        "bool",
        False,
        N_(
            "Send $H before each game (needs homing switches and $22=1). A board that is locked, since "
            "power-up or by an alarm, is homed anyway."
        ),
    ),
    ConfigKey(
        "grbl",
        "wait_near_reply",
        "bool",
        True,
        N_(
            "While you think, the empty magnet waits where the robot's reply will most likely begin; false "
            "keeps the gantry still (and quiet). The engine thinks on your time either way."
        ),
    ),
    ConfigKey(
        "grbl",
        "tidy_while_thinking",
        "choice",
        "board",
        N_(
            "While whom the robot takes the pieces its replies set down beside the board on to their capture "
            "zones: board, while a person at the board thinks (a piece they lift stops it); always, while "
            "anyone thinks (someone who types or clicks may wait a moment for a step under way); never, "
            "they wait for the reset after the game (a quiet gantry)."
        ),
        ("board", "always", "never"),
    ),
    ConfigKey(
        "magnet",
        "url",
        "url",
        "grbl://",
        N_(
            "What switches the magnet: GRBL's spindle or coolant output (as the layout says), a servo "
            "lifting a permanent magnet, or an electromagnet on a GPIO pin (the last two need the layout's "
            'magnet method = "servo").'
        ),
        ("grbl://", "servo://17?on=80&off=10", "gpio://23"),
    ),
    ConfigKey(
        "sensors",
        "url",
        "url",
        "sim://",
        N_(
            "The square sensors: Hall sensors on MCP23017 expanders on an I2C bus, an Arduino that answers "
            "with the occupancy, or a board that streams 8 bytes on every change."
        ),
        (
            "mcp23017://1?addresses=0x20,0x21,0x22,0x23,0x24,0x25,0x26,0x27",
            "arduino:///dev/ttyACM0",
            "bitboard:///dev/ttyUSB1",
            "sim://",
            "none://",
        ),
    ),
    ConfigKey(
        "leds",
        "url",
        "url",
        "sim://",
        N_(
            "The LEDs under the squares: a WS281x strip on a GPIO pin, with its LED count, its wiring "
            "order and its brightness (0 to 1)."
        ),
        ("ws281x://18?count=64&order=serpentine&brightness=0.3", "sim://", "none://"),
    ),
    ConfigKey(
        "display",
        "url",
        "url",
        "terminal://",
        N_(
            "A status display beside the table: an HD44780 character LCD behind a PCF8574 I2C backpack; "
            "terminal:// shows it in the terminal's view."
        ),
        ("lcd://1?address=0x27&cols=16&rows=2", "terminal://", "none://"),
    ),
    ConfigKey(
        "buzzer",
        "url",
        "url",
        "sim://",
        N_("A passive piezo buzzer on a GPIO pin: a note for each move, the end of a game."),
        ("buzzer://12", "sim://", "none://"),
    ),
    ConfigKey(
        "buzzer", "muted", "bool", False, N_("Keep the buzzer silent: no note for moves, the end of a game.")
    ),
    ConfigKey(
        "buttons",
        "url",
        "url",
        "none://",
        N_(
            "A d-pad, select and back buttons on GPIO pins (each to ground): the buttons player, and answers "
            "to the board's prompts; sim:// presses from a script."
        ),
        ("buttons://?up=5&down=6&left=13&right=19&select=26&back=21", "sim://?script=right,up*2,select"),
    ),
    ConfigKey(
        "speech",
        "url",
        "url",
        "sim://",
        N_(
            "What says moves, results, clock warnings and errors: espeak-ng through the sound card (any of "
            "its English voices, and a speed in words a minute); sim:// keeps every sentence."
        ),
        ("espeak://?voice=en-gb&speed=160", "sim://?dir=speech", "none://"),
    ),
    ConfigKey(
        "speech",
        "muted",
        "bool",
        None,
        N_(
            "True: never speak; false: always. Unset: speak when there is no display (none://) or a voice "
            "player plays, who must hear the moves read back."
        ),
    ),
    ConfigKey(
        "microphone",
        "url",
        "url",
        "sim://",
        N_(
            "The microphone of the voice player: the sound card's input (a USB microphone), or a sounddevice "
            "device by number; sim:// is a simulated person speaking through espeak-ng."
        ),
        ("mic://", "mic://2?rate=48000", "sim://"),
    ),
    ConfigKey(
        "microphone",
        "wide_voices",
        "bool",
        True,
        N_(
            "Hear each utterance at three vocal-tract lengths, for voices far from the speech model's (high, "
            "deep); false hears it once, three times quicker, for a slow computer."
        ),
    ),
    ConfigKey(
        "training",
        "watcher",
        "bool",
        False,
        N_(
            "After your move, if it throws the game away, the table says so before the engine answers and "
            "offers to take it back (the robot puts it back)."
        ),
    ),
    ConfigKey(
        "training",
        "watcher_loss",
        "number",
        0.3,
        N_(
            "How much a move must give away for the watcher to speak: a drop in winning chances, above 0 "
            "and at most 2 (the chances run from -1, lost, to +1, won, on lichess's scale): 0.3 a blunder, "
            "0.2 a mistake, 0.1 an inaccuracy."
        ),
        ("0.3", "0.2"),
    ),
    ConfigKey(
        "eboard",
        "protocol",
        "choice",
        None,
        N_(
            "The app's e-board protocol for `chessatron eboard` (and the Pi's service that starts it): "
            "millennium (ChessLink), dgt, chessnut (Air and Move) or cpp (the Chess Peripheral Protocol, "
            "blichess). Unset: the command line names it."
        ),
        EBOARD_PROTOCOLS,
    ),
    ConfigKey(
        "eboard",
        "transport",
        "choice",
        "serial",
        N_(
            "How the app reaches the table: serial (a serial line: [eboard] port) or ble (Bluetooth LE, "
            "advertised as the protocol's real boards)."
        ),
        ("serial", "ble"),
    ),
    ConfigKey(
        "eboard",
        "port",
        "text",
        None,
        N_(
            "The serial line the app is on: /dev/ttyGS0 (the Pi plugged into a phone or a computer as a USB "
            "board), a USB-serial adapter such as /dev/ttyUSB0."
        ),
        ("/dev/ttyGS0", "/dev/ttyUSB0"),
    ),
    ConfigKey(
        "eboard",
        "person",
        "choice",
        "white",
        N_(
            "The side the person at the board plays against the app; none: the app plays both sides (the "
            "robot makes every move the app shows)."
        ),
        ("white", "black", "none"),
    ),
    ConfigKey(
        "eboard",
        "name",
        "text",
        None,
        N_(
            "The name advertised over Bluetooth LE. Unset: the protocol's real boards' own (apps look for "
            "them by name)."
        ),
        ("MILLENNIUM CHESS",),
    ),
    ConfigKey(
        "lichess",
        "url",
        "http",
        "https://lichess.org",
        N_("Where online games are played: lichess.org, or any server that speaks the lichess API."),
        ("https://lichess.org",),
    ),
)

#: Each key by its ``section.name`` (``layout`` alone).
KEY_OF: Final = {key.key: key for key in CONFIG_KEYS}
