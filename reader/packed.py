"""Data scripts stored packed: their text gzipped and base64'd into one JavaScript string, which the
page inflates (reader.js's `readerInflate`, through the browser's `DecompressionStream`).

A data script calling `OBJECT.METHOD(ARGS...)` is packed as a whole (`packed_call`): its page
inflates the arguments and makes the same call (reader.js's `readerPacked`).

Repetitive markup and JSON shrink 4-30x this way (the sm90 IR page's panes: 5.24 MB -> 0.25 MB),
on disk and over any connection, file:// included; base64 costs a third over gzip's bytes. The
bytes are the same on every build (gzip's header carries no time)."""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
import zlib

LEVEL = 6


def packed(data: bytes) -> str:
    """`data` gzipped and base64'd: the string a packed script passes to its page."""
    return base64.b64encode(gzip.compress(data, compresslevel=LEVEL, mtime=0)).decode("ascii")


class Packing:
    """`packed` of data given in parts: what the parts so far and an ending make (`text`) is read
    off a copy of the compressor, so that a longer text costs only its new parts (zlib's output
    does not depend on how its input is cut: the text is `packed`'s of the whole)."""

    def __init__(self) -> None:
        self.z = zlib.compressobj(LEVEL, zlib.DEFLATED, 31)  # gzip.compress(mtime=0)'s stream
        self.out: list[bytes] = []

    def add(self, data: bytes) -> None:
        self.out.append(self.z.compress(data))

    def text(self, end: bytes = b"") -> str:
        """`packed` of the parts added and then `end`."""
        z = self.z.copy()
        return base64.b64encode(b"".join([*self.out, z.compress(end), z.flush()])).decode("ascii")

    def copy(self) -> Packing:
        other = Packing.__new__(Packing)
        other.z, other.out = self.z.copy(), list(self.out)
        return other


def unpacked(text: str) -> bytes | None:
    """What `packed` made `text` from, or None when it is not such a string."""
    try:
        return gzip.decompress(base64.b64decode(text, validate=True))
    except (binascii.Error, OSError, EOFError, zlib.error):
        return None


_CALL = re.compile(r"(\w+)\.(\w+)\((.*)\);\n\Z", re.S)
_PACKED_CALL = re.compile(r'readerPacked\("(\w+)","(\w+)","([A-Za-z0-9+/=]*)"\);\n\Z')


def packed_call(script: bytes) -> bytes:
    """A data script `OBJECT.METHOD(ARGS...);` (its arguments JSON) as one that calls the same
    once its arguments, packed, are inflated: `readerPacked("OBJECT","METHOD","<packed [ARGS]>");`
    (reader.js)."""
    m = _CALL.match(script.decode("utf-8"))
    assert m is not None and "\n" not in m[3], script[:80]  # one call (JSON has no raw line break)
    return f'readerPacked("{m[1]}","{m[2]}","{packed(f"[{m[3]}]".encode())}");\n'.encode()


def unpacked_call(script: bytes) -> bytes | None:
    """The script `packed_call` made `script` from (each call of a script of several such calls, in
    order: a source page's paint script carries its scopes too), or None when it is not one."""
    out = b""
    for line in script.decode("utf-8", errors="replace").splitlines(keepends=True) or [""]:
        m = _PACKED_CALL.match(line)
        args = unpacked(m[3]) if m else None
        if m is None or args is None:
            return None
        out += m[1].encode() + b"." + m[2].encode() + b"(" + args[1:-1] + b");\n"
    return out


# A page's part: HTML served as a script that fills one element of its page (irview.js), packed.
PART_CALL = "readerIr.pack("
RUN_MARK = "<!--ir-k-->"
"""What comes before each run of a part's rows (an IR pane's ops, a long source file's chunks):
the page paints a run when it nears the view or a row in it is needed (irview.js, codeview.js)."""


def part_text(element: str, html_text: str) -> str:
    """A part's script: it fills the element `element` of its page with `html_text` (packed: IR
    panes are long runs of the same markup)."""
    return f"{PART_CALL}{json.dumps(element)},\"{packed(html_text.encode())}\");\n"


_PART = re.compile(r'readerIr\.pack\(("(?:[^"\\]|\\.)*"),"([A-Za-z0-9+/=]*)"\);\n\Z')


def read_part(data: bytes) -> str | None:
    """The HTML of a part's script, or None when `data` is not one."""
    if not data.startswith(PART_CALL.encode()):
        return None
    m = _PART.match(data.decode("utf-8", errors="replace"))
    html_bytes = unpacked(m.group(2)) if m else None
    return html_bytes.decode("utf-8", errors="replace") if html_bytes is not None else None
