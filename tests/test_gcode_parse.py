"""Reading G-code lines the way GRBL 1.1 reads them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessatron.errors import GcodeError, ProtocolError
from chessatron.planning.gcode_parse import LINE_BUFFER_SIZE, parse_line


def test_words_are_read_in_order_upper_cased() -> None:
    line = parse_line("g1 x10 Y-2.5 f3000")
    assert line.words == (("G", 1.0), ("X", 10.0), ("Y", -2.5), ("F", 3000.0))
    assert line.g_codes == (1.0,)
    assert line.value("x") == 10.0
    assert line.value("Z") is None
    assert line.has("F") and not line.has("S")


def test_commands_and_values_without_spaces_and_with_spaces_inside_numbers() -> None:
    # GRBL throws whitespace away before it reads words, so "X1 0" is X10.
    assert parse_line("G0X1 0Y+.5").words == (("G", 0.0), ("X", 10.0), ("Y", 0.5))
    assert parse_line("G4 P0 M3 M8 S1000").m_codes == (3.0, 8.0)
    assert parse_line("G91.1").g_codes == (91.1,)
    assert parse_line("X1.").value("X") == 1.0


def test_comments_are_kept_apart_from_the_words() -> None:
    line = parse_line("G4 P0 (MAGNET ON) ; servo down")
    assert line.words == (("G", 4.0), ("P", 0.0))
    assert line.comments == ("MAGNET ON", "servo down")
    # A semicolon inside parentheses belongs to the comment, and a parenthesis after ';' is just text.
    assert parse_line("(a;b)X1").comments == ("a;b",)
    assert parse_line("X1 ; (not closed").comments == ("(not closed",)


def test_empty_and_comment_only_lines_are_blank() -> None:
    for text in ("", "   ", "\n", "(MAGNET OFF)", "; nothing", "\t( x )  "):
        line = parse_line(text)
        assert line.is_blank, text
        assert line.words == ()
    assert not parse_line("M5").is_blank


def test_a_trailing_newline_is_allowed() -> None:
    assert (
        parse_line("G1 X1 F100\n").words
        == parse_line("G1 X1 F100\r\n").words
        == parse_line("G1 X1 F100").words
    )


def test_dollar_lines_are_system_commands() -> None:
    assert parse_line("$H").system == "H"
    assert parse_line("$J=G91 X10 F1000").system == "J=G91X10F1000"
    assert parse_line("$$").words == ()
    assert not parse_line("$X").is_blank
    assert parse_line("G0 X1").system is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("G1 X", "letter 'X' has no number"),
        ("G1 X-", "letter 'X' has no number"),
        ("G1 X.", "letter 'X' has no number"),
        ("10", "number without a letter"),
        ("G1 X1.2.3", "number without a letter"),
        ("G1 X10 *", "unexpected character '*'"),
        ("G1 X10 é", "unexpected character"),
        ("G1 (MAGNET ON", "unclosed '('"),
        ("G1 X1)", "unmatched ')'"),
        ("G1 X1 X2", "appears twice"),
        ("G1 X1\nG1 X2", "more than one line"),
        ("G1 X1 -3", "number without a letter"),
    ],
)
def test_malformed_lines_are_refused(text: str, message: str) -> None:
    with pytest.raises(GcodeError, match=re.escape(message)) as info:
        parse_line(text)
    assert isinstance(info.value, ProtocolError)
    assert isinstance(info.value, ValueError)


def test_lines_longer_than_grbls_line_buffer_are_refused() -> None:
    fits = "G1 X" + "1" * (LINE_BUFFER_SIZE - 1 - 4)  # 79 characters plus the newline
    assert len(fits) + 1 == LINE_BUFFER_SIZE
    assert parse_line(fits).value("X") is not None
    assert parse_line(fits + "\n").value("X") is not None
    with pytest.raises(GcodeError, match="longer than GRBL's 80"):
        parse_line(fits + "1")
    with pytest.raises(GcodeError, match="81 characters"):
        parse_line("(" + "x" * 78 + ")")


def test_repeated_g_and_m_words_are_left_to_the_caller() -> None:
    # Whether two G words clash depends on their modal groups, which is the executor's business.
    assert parse_line("G90 G21 G17").g_codes == (90.0, 21.0, 17.0)


letters = st.sampled_from("XYFSPN")
numbers = st.decimals(min_value=-9999, max_value=9999, places=3, allow_nan=False, allow_infinity=False)


@given(
    g=st.sampled_from(["0", "1", "4", "90", "91"]),
    values=st.dictionaries(letters, numbers, max_size=4),
    lower=st.booleans(),
    comment=st.text(alphabet="ABC xyz;0123", max_size=10),
)
def test_formatted_words_read_back(g: str, values: dict[str, object], lower: bool, comment: str) -> None:
    text = f"G{g} " + " ".join(f"{letter}{value}" for letter, value in values.items()) + f" ({comment})"
    if lower:
        text = text.lower()
    line = parse_line(text)
    assert line.words == (("G", float(g)), *((letter, float(str(v))) for letter, v in values.items()))
    assert line.comments == (comment.lower().strip() if lower else comment.strip(),)
