"""Text made safe for a terminal: page text must not drive it.

A page can put escape sequences in its text (ESC [ 2J clears the screen, OSC 8 makes a link, ESC ]
0; sets the window title). Where curllm writes to a terminal, control characters are shown as
visible symbols instead (C0 as the Unicode control pictures, ␛ for ESC; DEL ␡; C1 as �); line
breaks and tabs stay. Files, pipes and JSON keep the data exactly as it was.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _picture(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    return "\u2421" if code == 0x7F else "\ufffd"


def neutralise(text: str) -> str:
    """``text`` with every control character except newline and tab shown as a visible symbol."""
    return _CONTROL.sub(_picture, text) if _CONTROL.search(text) else text
