"""The README and the manual say what the program does: every command line they show parses with the
program's own options, every option and config key they name exists, every default they state is the
program's, and the manual builds strictly with a command reference that lists every command and option.

The reference pages themselves are made from the code when the manual is built (scripts/mkdocs_hooks.py);
these tests hold the hand-written pages to the same program.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click
import pytest

from chessatron.cli import main
from chessatron.config import KEYS, Config, check_device_url
from chessatron.errors import ChessatronError
from chessatron.planning.layout import Layout
from chessatron.planning.layout_file import ARRAYS, SECTIONS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
#: How long the README may grow: a front door, not the manual.
README_MAX_LINES = 150

FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
PROGRAM = re.compile(r"^(?:\.venv/bin/)?chessatron(?=\s|$)")
#: A placeholder the text stands for (COMMAND, ID, FILE): not a subcommand to look up.
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_.:+-]*$")


@dataclass(frozen=True)
class Snippet:
    """A piece of a page: a line of a code block, or an inline code span."""

    page: str
    line: int
    text: str
    in_block: bool
    lang: str = ""

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text!r}"


def snippets() -> Iterator[Snippet]:
    """Every code block line and every inline code span of the README and the manual."""
    for path in PAGES:
        name = str(path.relative_to(ROOT))
        lang: str | None = None
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            fence = FENCE.match(line)
            if fence:
                lang = None if lang is not None else fence["lang"]
                continue
            if lang is not None:
                yield Snippet(name, number, line.strip(), True, lang)
            else:
                for span in SPAN.findall(line):
                    yield Snippet(name, number, span, False)


def sentences() -> Iterator[tuple[str, str]]:
    """Every page's text, paragraph by paragraph (with where it is), for statements across line ends."""
    for path in PAGES:
        name = str(path.relative_to(ROOT))
        for paragraph in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            yield name, " ".join(paragraph.split())


# --- the command tree ------------------------------------------------------------------------------------


def commands() -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command of ``chessatron`` that ``--help`` shows, by its path."""

    def walk(
        path: tuple[str, ...], command: click.Command
    ) -> Iterator[tuple[tuple[str, ...], click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            for name, sub in sorted(command.commands.items()):
                if not sub.hidden:
                    yield from walk((*path, name), sub)

    yield from walk(("chessatron",), main)


def option_names(command: click.Command) -> set[str]:
    return {
        name
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden
        for name in (*param.opts, *param.secondary_opts)
    } | {"-h", "--help"}


def find_option(command: click.Command, name: str) -> click.Option | None:
    for param in command.params:
        if isinstance(param, click.Option) and name in (*param.opts, *param.secondary_opts):
            return param
    return None


def takes_value(option: click.Option | None, token: str) -> bool:
    """Whether the token after ``token`` is this option's value."""
    return option is not None and not option.is_flag and not option.count and "=" not in token


def resolve(words: list[str]) -> list[tuple[click.Command, str, list[str]]]:
    """Split a command line (without the program's name) into each group or command it passes, with its
    name and the words that are its own (the last one's: all that is left). Raises
    :class:`AssertionError` for a word that is no subcommand where one must stand."""
    chain: list[tuple[click.Command, str, list[str]]] = []
    command: click.Command = main
    name = "chessatron"
    rest = list(words)
    own: list[str] = []
    while isinstance(command, click.Group):
        own = []
        while rest and rest[0].startswith("-"):
            token = rest.pop(0)
            own.append(token)
            if takes_value(find_option(command, token.split("=")[0]), token) and rest:
                own.append(rest.pop(0))
        if not rest or PLACEHOLDER.match(rest[0]):
            break
        sub = command.commands.get(rest[0])
        assert sub is not None, f"{' '.join([name, *own])}: no command {rest[0]!r}"
        chain.append((command, name, [*own, rest[0]]))
        command, name = sub, rest.pop(0)
        own = []
    chain.append((command, name, [*own, *rest]))
    return chain


def parse_command_line(words: list[str]) -> None:
    """Parse a whole command line the way ``chessatron`` would, without running it: unknown commands and
    options, a missing or bad value, an extra argument all fail."""
    chain = resolve(words)
    parent: click.Context | None = None
    for command, name, own in chain:
        try:
            parent = command.make_context(name, own, parent=parent)
        except click.exceptions.Exit:
            return  # --help or --version: nothing else is parsed
        except click.ClickException as exc:
            raise AssertionError(exc.format_message()) from exc


def check_names(words: list[str]) -> None:
    """The commands and options a mention names exist (placeholders and values are left alone)."""
    chain = resolve(words)
    known = set().union(*(option_names(command) for command, _, _ in chain))
    for token in (word for _, _, own in chain for word in own):
        for alternative in re.split(r"[|/]", token) if token.startswith("-") else token.split("|"):
            if alternative.startswith("-") and not alternative.startswith("---"):
                flag = alternative.split("=")[0]
                assert flag in known, f"{' '.join(words)}: {flag!r} is no option of {chain[-1][1]!r}"


def words_of(text: str) -> list[str]:
    """A mention's words: brackets, ellipses and trailing punctuation of the prose dropped."""
    cleaned = re.sub(r"[\[\]()…]|\.\.\.", " ", text)
    return [word for word in cleaned.split() if word]


def command_lines(snippet: Snippet) -> Iterator[list[str]]:
    """The ``chessatron`` command lines of a shell line: comments, pipes and redirections cut off."""
    if snippet.lang not in ("", "sh", "bash", "console"):
        return
    lexer = shlex.shlex(snippet.text.removeprefix("$ "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return
    segment: list[str] = []
    skip = False
    for token in [*tokens, ";"]:
        if skip:
            skip = False
        elif token in (">", ">>", "<", "2>"):
            skip = True
        elif set(token) <= set("|&;()<>"):
            if segment and PROGRAM.match(segment[0]):
                yield segment[1:]
            segment = []
        else:
            segment.append(token)


# --- command lines and mentions --------------------------------------------------------------------------


def test_every_command_line_in_the_readme_and_the_manual_parses() -> None:
    problems = []
    count = 0
    for snippet in snippets():
        if not snippet.in_block:
            continue
        for words in command_lines(snippet):
            count += 1
            try:
                parse_command_line(words)
            except AssertionError as exc:
                problems.append(f"{snippet}: {exc}")
    assert count >= 20, "the pages show fewer command lines than they did: is the scan still finding them?"
    assert not problems, "\n".join(problems)


def test_every_command_and_option_mentioned_exists() -> None:
    top = set(main.commands)
    problems = []
    for snippet in snippets():
        if snippet.in_block:
            continue
        words = words_of(snippet.text)
        if not words:
            continue
        if PROGRAM.match(snippet.text):
            words = words[1:]
        elif not (words[0] in top and any(word.startswith("--") for word in words)):
            continue
        try:
            check_names(words)
        except AssertionError as exc:
            problems.append(f"{snippet}: {exc}")
    assert not problems, "\n".join(problems)


def bench_options() -> set[str]:
    """The options the benchmarks' own commands take (argparse, in bench/)."""
    found: set[str] = set()
    for path in (ROOT / "bench").glob("*.py"):
        found |= set(re.findall(r"add_argument\(\s*\"(--[\w-]+)\"", path.read_text(encoding="utf-8")))
    return found


def test_every_option_named_alone_is_one_of_a_command() -> None:
    """A bare ``--flag`` in the text is an option of some command of chessatron's or of a benchmark's."""
    known = set().union(*(option_names(command) for _, command in commands())) | bench_options()
    problems = [
        str(snippet)
        for snippet in snippets()
        if not snippet.in_block
        and snippet.text.startswith("--")
        and snippet.text.split()[0].split("=")[0] not in known
    ]
    assert not problems, "options no command has:\n" + "\n".join(problems)


def test_every_make_target_and_benchmark_named_exists() -> None:
    targets = set(re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE))
    problems = []
    for snippet in snippets():
        for match in re.finditer(r"(?:^|\s)make((?: +[\w.=-]+)*)", snippet.text):
            words = [word for word in match[1].split() if "=" not in word]
            if words[:1] == ["-C"]:
                continue  # another folder's Makefile
            problems += [f"{snippet}: no make target {word!r}" for word in words if word not in targets]
        for module in re.findall(r"python -m (bench(?:\.\w+)?)", snippet.text):
            path = ROOT / (module.replace(".", "/") + ".py" if "." in module else "bench/__main__.py")
            if not path.is_file():
                problems.append(f"{snippet}: no benchmark {module!r}")
    assert not problems, "\n".join(problems)


def stated_default(command: click.Command, option: click.Option) -> str | None:
    """The default ``--help`` shows for an option."""
    ctx = command.make_context(command.name or "", [], resilient_parsing=True)
    record = option.get_help_record(ctx)
    match = re.search(r"\[default: ([^;\]]+)", record[1]) if record else None
    return match[1].strip() if match else None


def test_every_default_stated_is_the_programs() -> None:
    """``chessatron play --speed max`` (the default), and ``[grbl] home = false`` (the default), are
    what the program does when nothing is said."""
    stated = 0
    for page, text in sentences():
        for line in re.findall(r"`(?:\.venv/bin/)?chessatron ([^`]+)` \(the default\)", text):
            stated += 1
            chain = resolve(line.split())
            command = chain[-1][0]
            words = chain[-1][2]
            pairs = [(words[i], words[i + 1]) for i in range(len(words) - 1) if words[i].startswith("--")]
            assert pairs, f"{page}: {line!r} states no option's value"
            for flag, value in pairs:
                option = find_option(command, flag)
                assert option is not None, f"{page}: {line!r}: no option {flag}"
                assert stated_default(command, option) == value, (
                    f"{page}: {line!r} says {flag} {value} is the default; --help says "
                    f"{stated_default(command, option)!r}"
                )
        for section, key, value in re.findall(r"`\[(\w+)\] (\w+) = ([^`]+)` \(the default\)", text):
            stated += 1
            given = Config.from_dict({section: {key: tomllib.loads(f"v = {value}")["v"]}})
            assert replace(given, source="") == replace(Config.default(), source=""), (
                f"{page}: [{section}] {key} = {value} is not the default"
            )
    assert stated >= 2


# --- the config and the devices --------------------------------------------------------------------------


def test_every_config_key_named_exists_and_every_value_shown_is_accepted() -> None:
    problems = []
    for snippet in snippets():
        match = re.fullmatch(r"\[(\w+)\] (\w+)(?: = (.+))?", snippet.text)
        if snippet.in_block or match is None:
            continue
        section, key, value = match.groups()
        if section not in KEYS:
            continue  # a layout's section, or the typo a page shows on purpose
        if key not in KEYS[section]:
            problems.append(f"{snippet}: no key {key!r} in [{section}]")
        elif value is not None:
            try:
                Config.from_dict({section: {key: tomllib.loads(f"v = {value}")["v"]}})
            except (ChessatronError, tomllib.TOMLDecodeError) as exc:
                problems.append(f"{snippet}: {exc}")
    assert not problems, "\n".join(problems)


def toml_blocks() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in PAGES:
        for block in re.findall(r"^```toml\n(.*?)^```", path.read_text(encoding="utf-8"), re.DOTALL | re.M):
            if "--8<--" not in block:
                yield path.name, tomllib.loads(block)


def test_every_config_example_is_a_config_the_program_accepts() -> None:
    checked = 0
    for page, data in toml_blocks():
        if data and set(data) <= set(KEYS):
            checked += 1
            try:
                Config.from_dict(data)
            except ChessatronError as exc:
                pytest.fail(f"{page}: {data!r}: {exc}")
    assert checked >= 1


DEVICE_KINDS = {
    "GRBL": "grbl",
    "magnet": "magnet",
    "sensors": "sensors",
    "LEDs": "leds",
    "display": "display",
    "buzzer": "buzzer",
    "speech": "speech",
    "microphone": "microphone",
    "buttons": "buttons",
}
#: What marks a URL as a form to fill in rather than one to use as it is.
FORM = re.compile(r"…|\[|FILE|FOLDER|DEVICE|host:port|file=")


def test_every_device_url_shown_is_one_its_backend_accepts() -> None:
    """The URLs of the devices table, parsed by each device's own backend (nothing opened)."""
    layout = Layout.default()
    checked = 0
    for line in (DOCS / "hardware.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) < 2 or cells[0] not in DEVICE_KINDS:
            continue
        for url in SPAN.findall(cells[1]):
            if ("://" in url or url.startswith("/dev/")) and not FORM.search(url):
                check_device_url(DEVICE_KINDS[cells[0]], url, layout)
                checked += 1
    assert checked >= 15


def test_every_environment_variable_named_is_read_by_the_program() -> None:
    """(By the program, its tests or its benchmarks.)"""
    source = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("src", "tests", "bench")
        for path in (ROOT / folder).rglob("*.py")
        if path != Path(__file__)
    )
    named = {name for snippet in snippets() for name in re.findall(r"\b(CHESSATRON_[A-Z_]+)\b", snippet.text)}
    missing = sorted(name for name in named if name not in source)
    assert not missing, f"the pages name environment variables the program does not read: {missing}"


# --- the README and the repository ----------------------------------------------------------------------


def test_the_readme_is_a_front_door() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    for needed in ("make demo", "make test", "docs/demo-table.svg", "make docs"):
        assert needed in text
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), f"the README links {target!r}, which is not in the repository"


def test_the_repository_reads_nothing_beside_it() -> None:
    """Tests, benchmarks and the program use only what the repository holds (a fresh clone has no
    ../shared)."""
    beside = re.compile(r"\.\./shared|parents\[2\] / \"shared\"")
    places = [ROOT / "Makefile", ROOT / ".ci" / "run"]
    for folder in ("src", "tests", "bench", "scripts"):
        places += [path for path in (ROOT / folder).rglob("*") if path.suffix in (".py", ".toml", "")]
    found = [
        str(path.relative_to(ROOT))
        for path in places
        if path.is_file()
        and path != Path(__file__)
        and beside.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not found


# --- the manual as built ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The manual built strictly (as ``make docs`` builds it) into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    return out


def sections(page: str) -> dict[str, str]:
    """A built page's text under each of its headings, by the heading's id."""
    parts = re.split(r'<h[1-6] id="([^"]+)"', page)
    return {parts[i]: html.unescape(re.sub(r"<[^>]+>", "", parts[i + 1])) for i in range(1, len(parts), 2)}


def test_the_command_reference_lists_every_command_and_option(site: Path) -> None:
    by_id = sections((site / "cli.html").read_text(encoding="utf-8"))
    for path, command in commands():
        anchor = "-".join(path)
        assert anchor in by_id, f"the command reference has no section for {' '.join(path)}"
        missing = sorted(name for name in option_names(command) if name not in by_id[anchor])
        assert not missing, f"the reference of {' '.join(path)} lacks {missing}"


def test_the_config_and_layout_references_list_every_key(site: Path) -> None:
    config = sections((site / "configuration.html").read_text(encoding="utf-8"))
    for section, keys in KEYS.items():
        text = config[section]
        assert all(key in text for key in keys), f"[{section}] lacks keys in the reference"
    layout = sections((site / "layout.html").read_text(encoding="utf-8"))
    for section, keys in {**SECTIONS, **ARRAYS}.items():
        text = layout[section]
        assert all(key in text for key in keys), f"[{section}] lacks keys in the layout reference"


def test_every_page_is_in_the_manual(site: Path) -> None:
    for path in DOCS.glob("*.md"):
        built = site / f"{path.stem}.html"  # page.html: the manual opens from the file system
        assert built.is_file(), f"{path.name} was not built"
