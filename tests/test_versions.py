"""The code version: reader's source and the versions of the libraries that shape its results."""

from __future__ import annotations

import importlib.metadata
import platform

from reader import versions as module


def test_the_code_version_names_the_versions_of_the_libraries_that_shape_the_output(monkeypatch):
    found = module.library_versions()
    assert list(found) == list(module.SHAPING)
    assert found["Python"] == f"{platform.python_implementation()} {platform.python_version()}"
    for name in module.SHAPING[1:]:
        assert found[name] == importlib.metadata.version(name), name
    # Another Pygments (or any of them): another code version, so no derived result is shared.
    versions = []
    for pygments in ("2.21.0", "2.22.0"):
        monkeypatch.setattr(module, "library_versions", lambda p=pygments: {**found, "Pygments": p})
        module.code_version.cache_clear()
        versions.append(module.code_version())
    module.code_version.cache_clear()
    assert versions[0] != versions[1]
