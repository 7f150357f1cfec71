"""Layout of generated C++: what a formatter would do to text whose names vary.

The templates of tools/new_op_cc.py are laid out for short names; these
functions keep the result within 80 columns and tidy for any name: comment
paragraphs are re-wrapped, the backslashes of a macro aligned, and a code line
that got too long is broken after its first parenthesis.
"""

import re
import textwrap
from typing import List

WIDTH = 80
_COMMENT = re.compile(r"^(?P<indent> *)// ?(?P<text>.*)$")
# Comment lines that start a paragraph of their own.
_PARAGRAPH_START = ("TODO(", "- ")


def _wrap(indent: str, words: str) -> List[str]:
    prefix = f"{indent}// "
    return textwrap.wrap(words, width=WIDTH, initial_indent=prefix,
                         subsequent_indent=prefix, break_long_words=False,
                         break_on_hyphens=False)


def reflow_comments(text: str) -> str:
    """Re-wraps each paragraph of whole-line `//` comments to WIDTH columns."""
    out: List[str] = []
    paragraph: List[str] = []
    indent = ""

    def flush():
        if paragraph:
            out.extend(_wrap(indent, " ".join(paragraph)))
            paragraph.clear()

    for line in text.split("\n"):
        match = _COMMENT.match(line)
        if not match:
            flush()
            out.append(line)
            continue
        words = match.group("text").strip()
        if (not words or words.startswith(_PARAGRAPH_START)
                or match.group("indent") != indent):
            flush()
        indent = match.group("indent")
        if words:
            paragraph.append(words)
        else:
            out.append(f"{indent}//")
    flush()
    return "\n".join(out)


def align_backslashes(text: str) -> str:
    """Puts the line-continuation backslashes of each macro in one column, one
    space after its longest line."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].endswith("\\"):
            i += 1
            continue
        end = i
        while end < len(lines) and lines[end].endswith("\\"):
            end += 1
        bodies = [line[:-1].rstrip() for line in lines[i:end]]
        column = max(len(body) for body in bodies) + 1
        lines[i:end] = [body.ljust(column) + "\\" for body in bodies]
        i = end
    return "\n".join(lines)


def break_long_lines(text: str) -> str:
    """Breaks a code line longer than WIDTH after its first '(', continuing
    four spaces further in, where both parts then fit."""
    out = []
    for line in text.split("\n"):
        stripped = line.lstrip()
        if (len(line) <= WIDTH or stripped.startswith(("//", "#"))
                or line.endswith("\\") or "(" not in line):
            out.append(line)
            continue
        indent = line[:len(line) - len(stripped)]
        head, rest = line.split("(", 1)
        continuation = f"{indent}    {rest.strip()}"
        if len(head) + 1 <= WIDTH and len(continuation) <= WIDTH:
            out.extend([head + "(", continuation])
        else:
            out.append(line)
    return "\n".join(out)


def tidy_cc(text: str) -> str:
    return align_backslashes(break_long_lines(reflow_comments(text)))
