"""MkDocs hooks for chessatron's manual: the reference pages are made from the code, so they cannot drift.

A page asks for a generated part with a directive on a line of its own:

* ``::: chessatron-cli``: every command of ``chessatron`` with its help, usage and options, as each
  command's ``--help`` says them (click's own help records, so defaults and ranges read the same);
* ``::: chessatron-config``: every section and key of the machine config (``chessatron.config``'s
  ``KEYS``, ``TOP_KEYS``, ``SCHEMES``), each key's default worked out by :class:`chessatron.config.Config`
  itself, and its description and section text from the shipped default config
  (``src/chessatron/data/chessatron.toml``);
* ``::: chessatron-layout``: the same for the table layout (``chessatron.planning.layout_file``'s
  ``SECTIONS`` and ``ARRAYS``, from the classic table ``src/chessatron/data/table.toml``);
* ``::: chessatron-docstring MODULE``: a module's docstring (file formats are described where they are read
  and written), turned from the few reStructuredText forms it uses into Markdown.

What cannot be generated is a warning, and ``mkdocs build --strict`` (``make docs``, ``make test``) fails
on it: a config or layout key that the shipped file does not mention (add a line for it, commented out
when it is unset by default), or a value in the shipped default config that is not the built-in default.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import click
from mkdocs.plugins import get_plugin_logger

from chessatron.config import KEYS, SCHEMES, TOP_KEYS, Config, default_config_text
from chessatron.errors import ChessatronError
from chessatron.planning.layout import Layout
from chessatron.planning.layout_file import ARRAYS, SECTIONS

LOG = get_plugin_logger("chessatron")

DIRECTIVE = re.compile(r"^::: chessatron-(?P<name>cli|config|layout|docstring)(?: +(?P<argument>\S+))?\s*$")
#: A key's line in a commented TOML file: ``key = value  # what it is``, or commented out.
KEY_LINE = re.compile(r"^(?P<hash>#\s*)?(?P<key>[A-Za-z_][\w-]*)\s*=\s*(?P<rest>.*)$")
HEADER = re.compile(r"^\[(?P<array>\[)?(?P<name>[\w-]+)\]?\]\s*(?:#.*)?$")
TOP = ""
"""The section name of the keys before the first header."""

CONFIG_FILE = "src/chessatron/data/chessatron.toml"
LAYOUT_FILE = "src/chessatron/data/table.toml"

#: How the reference names a URL scheme; the rest are written ``scheme://``.
SCHEME_NAMES = {"serial": "a serial device (`/dev/ttyUSB0`, `/dev/ttyACM0`)"}


@dataclass(frozen=True)
class KeyLine:
    """A key as a commented TOML file shows it."""

    section: str
    key: str
    value: str
    """The TOML text of its value."""
    commented: bool
    """The line is commented out: an example, or the default spelt out."""
    text: str
    """The comment beside it, and the comment lines below it that line up with that one."""


@dataclass(frozen=True)
class CommentedToml:
    """A TOML file whose comments document its keys: each key's line, each section's text."""

    keys: Mapping[tuple[str, str], KeyLine]
    sections: Mapping[str, str]
    """Each section's text from its header to the next one (an array of tables: its first entry, with
    the comment lines just above it)."""

    def in_order(self, section: str, keys: frozenset[str]) -> list[str]:
        """``keys`` in the order the file shows them, those it does not show last."""
        shown = [key for (where, key) in self.keys if where == section and key in keys]
        return shown + sorted(keys - set(shown))

    @classmethod
    def parse(cls, text: str, schema: Mapping[str, frozenset[str]]) -> CommentedToml:
        """Read ``text``; a commented-out line counts as a key's only when ``schema`` names that key."""
        keys: dict[tuple[str, str], KeyLine] = {}
        sections: dict[str, list[str]] = {TOP: []}
        section = TOP
        lines = text.splitlines()
        for index, line in enumerate(lines):
            header = HEADER.match(line)
            if header:
                section = header["name"]
                if section in sections:
                    section = f"{section}#{index}"  # a later entry of an array of tables
                above = sections[next(reversed(sections))]
                comments: list[str] = []
                while above and above[-1].startswith("#"):
                    comments.insert(0, above.pop())
                sections[section] = [*comments, line]
                continue
            sections[section].append(line)
            match = KEY_LINE.match(line)
            if match is None or (match["hash"] and match["key"] not in schema.get(section, ())):
                continue
            value, column = split_comment(match["rest"])
            text_parts = []
            if column is not None:
                column += line.index(match["rest"])
                text_parts.append(line[column + 1 :].strip())
                for below in lines[index + 1 :]:
                    if len(below) <= column or below[:column].strip() not in ("", "#"):
                        break
                    text_parts.append(below[column:].lstrip("#").strip())
            keys.setdefault(
                (section, match["key"]),
                KeyLine(section, match["key"], value.strip(), bool(match["hash"]), " ".join(text_parts)),
            )
        texts = {name: "\n".join(body).strip() for name, body in sections.items() if "#" not in name}
        return cls(keys, texts)


def split_comment(rest: str) -> tuple[str, int | None]:
    """A TOML value and the column of the comment after it, if any (a ``#`` inside a string is none).

    >>> split_comment('"sim://"   # the simulator')
    ('"sim://"   ', 11)
    >>> split_comment('"a#b"')
    ('"a#b"', None)
    """
    quote = ""
    for column, char in enumerate(rest):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return rest[:column], column
    return rest, None


def toml_value(text: str) -> Any:
    """The value a TOML value's text stands for."""
    return tomllib.loads(f"value = {text}")["value"]


def config_default(section: str, key: str, line: KeyLine | None) -> str | None:
    """The built-in default of a config key as TOML text, or None when it is unset by default.

    :class:`Config` decides it: a value the shipped file shows (set or commented out) is the default when
    a config holding only it reads the same as an empty config.
    """
    if line is None:
        return None
    try:
        value = toml_value(line.value)
        data = {key: value} if section == TOP else {section: {key: value}}
        same = _comparable(Config.from_dict(data)) == _comparable(Config.default())
    except (ChessatronError, tomllib.TOMLDecodeError):
        same = False
    if same:
        return line.value
    if not line.commented:
        LOG.warning(
            "%s sets %s = %s, but the built-in default differs: make them agree",
            CONFIG_FILE,
            _name(section, key),
            line.value,
        )
    return None


def _comparable(config: Config) -> Config:
    return dataclasses.replace(config, source="")


def _name(section: str, key: str) -> str:
    return key if section == TOP else f"[{section}] {key}"


def _cell(text: str) -> str:
    """Text for one cell of a Markdown table."""
    return text.replace("|", "\\|").replace("\n", " ")


def _accepts(section: str, key: str, value: str | None) -> str:
    if key == "url" and section in SCHEMES:
        names = sorted(SCHEME_NAMES.get(scheme, f"`{scheme}://`") for scheme in SCHEMES[section])
        return ", ".join(names)
    if value in ("true", "false"):
        return "`true` or `false`"
    return ""


def config_reference() -> Iterator[str]:
    """The machine config's reference: a table of keys for every section, then the section as shipped."""
    schema: dict[str, frozenset[str]] = {TOP: TOP_KEYS, **KEYS}
    shipped = CommentedToml.parse(default_config_text(), schema)
    for section, keys in schema.items():
        title = "The top of the file" if section == TOP else f"`[{section}]`"
        yield f"### {title}"
        yield ""
        yield "| key | default | takes | what it is |"
        yield "| --- | --- | --- | --- |"
        for key in shipped.in_order(section, keys):
            line = shipped.keys.get((section, key))
            if line is None:
                LOG.warning(
                    "the config key %s is not in %s: add a line for it (commented out when unset)",
                    _name(section, key),
                    CONFIG_FILE,
                )
            default = config_default(section, key, line)
            shown = f"`{default}`" if default is not None else "unset"
            text = line.text if line else ""
            if not text and key == "url":
                text = "the device, by URL: its forms are below"
            yield f"| `{key}` | {_cell(shown)} | {_cell(_accepts(section, key, default))} | {_cell(text)} |"
        yield ""
        body = shipped.sections.get(section, "")
        if body:
            yield "As the default config has it:"
            yield ""
            yield "```toml"
            yield body
            yield "```"
            yield ""


def layout_reference() -> Iterator[str]:
    """The table layout's reference: every section's keys with the classic table's values."""
    classic_text = _layout_text()
    shipped = CommentedToml.parse(classic_text, {**SECTIONS, **ARRAYS})
    for section, keys in {**SECTIONS, **ARRAYS}.items():
        array = section in ARRAYS
        yield f"### `[[{section}]]`" if array else f"### `[{section}]`"
        yield ""
        description = [
            line.lstrip("#").strip()
            for line in shipped.sections.get(section, "").splitlines()
            if line.startswith("#")
        ]
        if description:
            yield " ".join(description)
            yield ""
        yield "| key | the classic table | what it is |"
        yield "| --- | --- | --- |"
        for key in shipped.in_order(section, keys):
            line = shipped.keys.get((section, key))
            if line is None:
                LOG.warning(
                    "the layout key %s is not in %s: add a line for it", _name(section, key), LAYOUT_FILE
                )
            value = f"`{line.value}`" if line else ""
            yield f"| `{key}` | {_cell(value)} | {_cell(line.text if line else '')} |"
        yield ""


def _layout_text() -> str:
    from importlib import resources

    text = (resources.files("chessatron") / "data" / "table.toml").read_text(encoding="utf-8")
    Layout.from_dict(tomllib.loads(text))  # the reference documents a layout the program accepts
    return text


# --- the commands ---------------------------------------------------------------------------------------

#: Characters Markdown would read as markup in a help text, outside its `code`.
MARKUP = re.compile(r"([\\*_<\[\]|])")


def cli_reference() -> Iterator[str]:
    """Every command of ``chessatron``, a section each: help, usage, options, subcommands."""
    from chessatron.cli import main

    yield from _command_docs(main, "chessatron", None, 2)


def _command_docs(
    command: click.Command, name: str, parent: click.Context | None, level: int
) -> Iterator[str]:
    ctx = command.make_context(name, [], parent=parent, resilient_parsing=True)
    path = ctx.command_path
    yield f"{'#' * min(level, 6)} {path}"
    yield ""
    for paragraph in inspect.cleandoc(command.help or "").split("\n\n"):
        yield _help_text(" ".join(line for line in paragraph.splitlines() if line.strip() != "\b"))
        yield ""
    yield "```text"
    yield f"Usage: {path} {' '.join(command.collect_usage_pieces(ctx))}"
    yield "```"
    yield ""
    # the arguments are in the usage line; click gives them no help
    options = [param for param in command.get_params(ctx) if isinstance(param, click.Option)]
    records = [record for param in options if (record := param.get_help_record(ctx))]
    if records:
        yield "| option | what it does |"
        yield "| --- | --- |"
        for names, text in records:
            yield f"| `{names}` | {_help_text(text)} |"
        yield ""
    if isinstance(command, click.Group):
        subcommands = [
            (sub_name, sub)
            for sub_name in command.list_commands(ctx)
            if (sub := command.get_command(ctx, sub_name)) is not None and not sub.hidden
        ]
        if subcommands:
            yield "| command | what it does |"
            yield "| --- | --- |"
            for sub_name, sub in subcommands:
                anchor = re.sub(r"[^a-z0-9]+", "-", f"{path} {sub_name}".lower()).strip("-")
                summary = _help_text(sub.get_short_help_str(limit=300))
                yield f"| [`{path} {sub_name}`](#{anchor}) | {summary} |"
            yield ""
        for sub_name, sub in subcommands:
            yield from _command_docs(sub, sub_name, ctx, level + 1)


def _help_text(text: str) -> str:
    """A help text as Markdown: its `code` kept, everything else literal."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd backtick: no code at all
        parts = [text]
    return "`".join(part if i % 2 else MARKUP.sub(r"\\\1", part) for i, part in enumerate(parts))


# --- docstrings: the few reStructuredText forms they use, as Markdown ------------------------------------

ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?\.?([^`]+)`")


def docstring_markdown(module_name: str, heading: int = 3) -> Iterator[str]:
    """A module's docstring as Markdown: ````x```` as code, roles as code, ``::`` literal blocks and
    doctests as code blocks, underlined titles as headings of level ``heading``."""
    module = importlib.import_module(module_name)
    doc = module.__doc__
    if not doc:
        LOG.warning("%s has no docstring to show", module_name)
        return
    lines = doc.strip("\n").splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line and set(following) in ({"-"}, {"="}) and len(following) >= len(line.strip()):
            yield f"{'#' * heading} {_inline(line.strip())}"
            yield ""
            index += 2
            continue
        if line.startswith(">>>"):
            block, index = _take_block(lines, index, lambda text: bool(text.strip()))
            yield "```pycon"
            yield from block
            yield "```"
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith(".."):
            text = line.rstrip()[:-2].rstrip()
            yield _inline(text + ":") if text else ""
            yield ""
            start = index + 1
            while start < len(lines) and not lines[start].strip():
                start += 1
            body, index = _take_block(lines, start, _indented_past(_indent(line)), dedent=True)
            while body and not body[-1].strip():
                body.pop()
            yield "```"
            yield from body
            yield "```"
            yield ""
            continue
        yield _inline(line)
        index += 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _indented_past(indent: int) -> Callable[[str], bool]:
    """Whether a line belongs to a literal block under a line indented by ``indent``."""
    return lambda text: not text.strip() or _indent(text) > indent


def _take_block(
    lines: Sequence[str], start: int, belongs: Callable[[str], bool], dedent: bool = False
) -> tuple[list[str], int]:
    end = start
    while end < len(lines) and belongs(lines[end]):
        end += 1
    block = list(lines[start:end])
    if dedent:
        margin = min((_indent(text) for text in block if text.strip()), default=0)
        block = [text[margin:] for text in block]
    return block, end


def _inline(line: str) -> str:
    line = ROLE.sub(r"`\1`", line)
    return re.sub(r"``(.+?)``", r"`\1`", line)


# --- the hook ---------------------------------------------------------------------------------------------


def expand(markdown: str) -> str:
    """``markdown`` with every chessatron directive replaced by what it stands for."""
    out: list[str] = []
    for line in markdown.splitlines():
        match = DIRECTIVE.match(line)
        if match is None:
            out.append(line)
        elif match["name"] == "cli":
            out.extend(cli_reference())
        elif match["name"] == "config":
            out.extend(config_reference())
        elif match["name"] == "layout":
            out.extend(layout_reference())
        elif match["argument"]:
            out.extend(docstring_markdown(match["argument"]))
        else:
            LOG.warning("%r names no module", line)
    return "\n".join(out) + "\n"


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs' hook: each page's Markdown, before it becomes HTML."""
    return expand(markdown) if "::: chessatron-" in markdown else markdown
