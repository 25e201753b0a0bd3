"""The command line in the player's language (issue 39): ``--lang`` on every command, the config's
``[player] language``, the environment's locale, in that order; ``--help`` and click's own words
translated; the texts of the commands all marked (the pseudo-language finds any that escaped).

The catalogs hold no translations yet in a helper's tree, so a real language is told by what Babel
writes without a catalog: the date of a saved game in the games list (``Nov 29, 2026``, ``29.11.2026``,
``29 nov. 2026``)."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path

import chess
import click
import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.cli.helptext import CLICK_WORDS, _click_plurals
from chessatron.game.records.record import GameRecord, Player
from chessatron.game.records.store import save_record
from chessatron.i18n.extract import PACKAGE

#: A pseudo-translated text: everything marked is wrapped in these (nested when a message holds another).
_WRAPPED = re.compile(r"⟦[^⟦⟧]*⟧")


def unwrapped(text: str) -> str:
    """``text`` without its pseudo-translated parts: what escaped translation, and the values around it."""
    while True:
        shorter = _WRAPPED.sub(" ", text)
        if shorter == text:
            return text
        text = shorter


def english_words(text: str, allowed: set[str]) -> list[str]:
    """The words of three letters or more outside ⟦ ⟧ that are not options (``--white``), metavars or
    click's type names (``PLAYER``, ``TEXT``), or ``allowed`` (command names, values)."""
    found = []
    for token in unwrapped(text).split():
        if token.startswith(("-", "[", "'")) or token.isupper():
            continue
        for word in re.findall(r"[A-Za-z]{3,}", token):
            if word not in allowed and not word.isupper():
                found.append(word)
    return found


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``chessatron ARGS`` as a person runs it: a process of its own, the terminal 100 columns wide."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("CHESSATRON_")}
    environ.update({"COLUMNS": "100", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "chessatron.cli", *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )


# --- --help ------------------------------------------------------------------------------------------


def test_the_help_of_chessatron_and_of_a_command_is_in_the_language_asked_for() -> None:
    top = run("--lang", "pseudo", "--help")
    assert top.returncode == 0, top.stderr
    assert "⟦Üšàĝé:⟧" in top.stdout and "⟦Öƥţîöñš⟧" in top.stdout  # click's own words too
    assert "⟦Çöɱɱàñđš⟧" in top.stdout and "⟦Šĥöŵ ţĥîš ɱéššàĝé àñđ éẋîţ.⟧" in top.stdout
    allowed = {"python", "chessatron", "cli", *(word for name in main.commands for word in name.split("-"))}
    assert english_words(top.stdout, allowed) == [], top.stdout
    # after the command, as on any command; every option's help, the --speed sentences, the defaults' label
    play = run("play", "--lang", "pseudo", "--help")
    assert play.returncode == 0, play.stderr
    assert "⟦Ƥĺàý à ĝàɱé àţ ţĥé ţàƀĺé" in play.stdout and "⟦đéƒàüĺţ: keyboard⟧" in play.stdout
    values = {"python", "chessatron", "cli", "play", "keyboard", "engine", "stockfish", "max"}
    assert english_words(play.stdout, values) == [], play.stdout


def test_every_help_text_of_every_command_is_marked_for_translation() -> None:
    """A help written without ``N_`` reaches no catalog: every command's help, short help, option help and
    default's text is a message the catalogs' extraction finds in the command modules."""
    marked = {
        message if isinstance(message, str) else message[0]
        for _, _, message, _, _ in extract_from_dir(
            str(PACKAGE / "cli"), method_map=[("**.py", "python")], keywords=DEFAULT_KEYWORDS
        )
    }
    unmarked = []

    def walk(command: click.Command, path: str) -> None:
        texts = [command.help, command.short_help]
        for param in command.params:
            if isinstance(param, click.Option):
                texts.append(param.help)
                texts.append(param.show_default if isinstance(param.show_default, str) else None)
        for text in texts:
            # (a help of two sentences is two messages: --speed's)
            if text and text not in marked and not all(part in marked for part in _sentences(text)):
                unmarked.append(f"{path}: {text[:60]!r}")
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}")

    walk(main, "chessatron")
    assert not unmarked, "\n".join(unmarked)


def _sentences(text: str) -> list[str]:
    return [part + ("" if part.endswith(".") else ".") for part in re.split(r"(?<=\.) (?=[A-Z])", text)]


def test_click_still_says_the_words_marked_for_it() -> None:
    """click's messages are in our catalogs by their English text: a click that words one differently
    would leave it untranslated."""
    source = "".join(path.read_text(encoding="utf-8") for path in Path(click.__file__).parent.glob("*.py"))
    # (Commands is our own list's heading; click's is the same word)
    for message in [*CLICK_WORDS, *_click_plurals()]:
        assert f'"{message}"' in source or repr(message) in source, message


# --- choosing the language ---------------------------------------------------------------------------


def test_an_unknown_language_is_refused_in_one_line_naming_the_choices() -> None:
    refused = run("--lang", "xx", "play")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        "chessatron: the table does not speak 'xx'; choose one of en, de, fr, es, nl, it"
    ]
    bare = CliRunner().invoke(main, ["games", "--lang"])
    assert (
        bare.exit_code == 2 and bare.stderr == "chessatron: --lang needs a language: en, de, fr, es, nl, it\n"
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A saved game played on 29 November 2026, in ``tmp_path / "games"``."""
    record = GameRecord(
        moves=tuple(chess.Move.from_uci(uci) for uci in ("f2f3", "e7e5", "g2g4", "d8h4")),
        white=Player("Ann", "keyboard"),
        black=Player("Stockfish", "engine", "3"),
        result="0-1",
        termination="checkmate",
        date=dt.date(2026, 11, 29),
    )
    save_record(record, tmp_path / "games")
    return tmp_path


def listed_date(home: Path, *args: str, config: str | None = None, **env: str) -> str:
    """The date the games list shows (``games ARGS``), run with the config (``[player]`` ``config``) and
    the environment given."""
    path = home / "chessatron.toml"
    path.write_text(f"[player]\n{config or ''}\n", encoding="utf-8")
    result = CliRunner(env={"CHESSATRON_CONFIG": str(path), **env}).invoke(
        main, ["games", "--games-dir", str(home / "games"), *args]
    )
    assert result.exit_code == 0, result.output
    row = result.stdout.splitlines()[1]
    return row[row.index(" ") :].split("  ")[1].strip()


def test_the_language_is_the_option_s_else_the_config_s_else_the_environment_s(home: Path) -> None:
    assert listed_date(home) == "Nov 29, 2026"  # (the tests' environment: C.UTF-8)
    assert listed_date(home, config='language = "de"') == "29.11.2026"
    assert listed_date(home, "--lang", "fr", config='language = "de"') == "29 nov. 2026"
    assert listed_date(home, "--lang=de") == "29.11.2026"  # (--lang=CODE as well as --lang CODE)
    assert listed_date(home, LANGUAGE="fr") == "29 nov. 2026"
    assert listed_date(home, config='language = "de"', LANGUAGE="fr") == "29.11.2026"
    assert listed_date(home, "--lang", "en", LANGUAGE="fr") == "Nov 29, 2026"
    # --lang before the command, as after it
    before = CliRunner().invoke(main, ["--lang", "pseudo", "games", "--games-dir", str(home / "nothing")])
    assert before.exit_code == 0 and before.stdout.startswith("⟦ñö šàṽéđ ĝàɱéš îñ ")


def test_config_check_names_a_language_the_table_does_not_speak(tmp_path: Path) -> None:
    path = tmp_path / "chessatron.toml"
    path.write_text('[player]\nlanguage = "klingon"\n', encoding="utf-8")
    refused = CliRunner().invoke(main, ["config", "check", str(path)])
    assert refused.exit_code == 2
    assert refused.stderr == (
        "chessatron: [player] language = 'klingon' must be one of 'en', 'de', 'fr', 'es', 'nl', 'it' "
        f"(unset: the system's language) (in {path})\n"
    )
    path.write_text('[player]\nlanguage = "Deutsch"\n', encoding="utf-8")
    checked = CliRunner().invoke(main, ["config", "check", str(path)])
    assert checked.exit_code == 0 and "  language: Deutsch (de)" in checked.stdout.splitlines(), (
        checked.output
    )


def test_what_the_commands_say_is_all_translated(tmp_path: Path) -> None:
    """The pseudo-language through a config with every kind of problem and a games folder with none."""
    path = tmp_path / "chessatron.toml"
    path.write_text(
        '[player]\nboard = "pink"\nsound = "yes"\n[grbl]\nbaudrate = "fast"\nurll = "sim://"\n'
        '[magnet]\nurl = "ftp://x"\n[lichess]\nurl = "lichess.org"\n',
        encoding="utf-8",
    )
    checked = CliRunner().invoke(main, ["config", "check", str(path), "--lang", "pseudo"])
    assert checked.exit_code == 2
    lines = checked.stderr.splitlines()
    assert len(lines) == 7 and all(line.strip().startswith(("chessatron: ⟦", "⟦")) for line in lines), lines
    # the keys and values as the file writes them, the schemes a URL may have
    values = {"chessatron", "pink", "yes", "fast", "urll", "url", "ftp", "lichess", "org", "http", "https"}
    values |= {"baudrate", "board", "sound", "brown", "blue", "green", "grey", "player", "grbl", "magnet"}
    values |= {"sim", "servo", "gpio", "home", "wait_near_reply", "tidy_while_thinking", "toml"}
    said = checked.stderr.replace(str(path), "FILE")
    assert english_words(said, values) == [], said
    empty = CliRunner().invoke(main, ["--lang", "pseudo", "games", "--games-dir", str(tmp_path / "none")])
    assert empty.stdout.startswith("⟦ñö šàṽéđ ĝàɱéš îñ ")
    assert english_words(empty.stdout.replace(str(tmp_path), "FOLDER"), set()) == [], empty.stdout
