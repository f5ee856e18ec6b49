"""A file's scopes for its page's sticky line and name marking (reader/render/code/scopes.py)."""

from __future__ import annotations

import json

from reader.render.code.scopes import Scope, scope_script, scopes

CODE = '''import os
total = 0


def area(width, height, *rest, scale=1, **extra):
  global seen
  total = width * height
  for i, (a, b) in enumerate(rest):
    with open(a) as f:
      pass
  try:
    import json as j
  except OSError as err:
    raise
  def inner(q):
    return q + total
  seen = [k for k in extra]
  return total


class Shape:
  """A shape."""

  if os.name:
    def scale(self, by: int = total):
      return by

    @staticmethod
    def make():
      lambda z: z
'''


def test_each_function_has_its_lines_and_local_names():
    found = {s.qualname: s for s in scopes(CODE, "x.py")}
    assert found["area"] == Scope(5, 18, "f", "area", (
        "a", "b", "err", "extra", "f", "height", "i", "inner", "j", "k", "rest", "scale", "total", "width"), 6)
    assert found["area.inner"] == Scope(15, 16, "f", "area.inner", ("q",), 16)  # `total` is area's, not inner's
    assert found["Shape"] == Scope(21, 30, "c", "Shape", (), 22)
    assert found["Shape.scale"].names == ("by", "self")  # a def inside an `if` of the class
    assert found["Shape.make"] == Scope(29, 30, "f", "Shape.make", (), 30)  # the lambda's `z` is its own
    assert [s.qualname for s in scopes(CODE, "x.py")] == ["area", "area.inner", "Shape", "Shape.scale",
                                                        "Shape.make"]


def test_a_file_that_does_not_parse_has_no_scopes_and_the_script_names_its_path():
    assert scopes("def (:\n", "bad.py") == []
    script = scope_script("pkg/a.py", "0" * 40, "def f(x):\n  return x\n", None)
    assert script.src_uri == "assets/scopes/pkg/a.py.js"
    head, _, body = script.data.decode().partition(",")
    assert head == 'readerScopes.add("pkg/a.py"' and json.loads(body[:-3]) == [[1, 2, "f", "f", "x", 2]]
