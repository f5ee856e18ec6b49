"""All git access, through GitPython: fetch a pin's commit and its blobs, read the project's history."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import git

from reader.errors import GitError, ReaderError
from reader.pins import check_url

# Never let a URL pick a transport that runs commands (ext::, fd::), whatever git's defaults are.
SAFE_CONFIG = ["-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never",
               "-c", "protocol.file.allow=always", "-c", "core.hooksPath=/dev/null"]


SYMLINK_MODE = "120000"
NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
"""Never stop to ask for a password: a source that wants one has failed, and the next is tried."""


def _git(repo: git.Repo, *args: str) -> str:
    """Run one git command in `repo`; every failure becomes a GitError with git's own message."""
    try:
        return repo.git.execute(["git", *SAFE_CONFIG, *args], stdout_as_string=True, env=NO_PROMPT)
    except git.GitCommandError as e:
        detail = (e.stderr or "").strip().replace("\n", " ").removeprefix("stderr: ")
        raise GitError(f"git {args[0]} failed: {detail.strip(chr(39))[:300]}") from None


def _normalize(url: str) -> str:
    check_url(url)
    path = Path(url).expanduser()
    if "://" not in url and not url.startswith("git@") and path.exists():
        return path.resolve().as_uri()
    return url


def open_store(store: Path) -> git.Repo:
    """The bare repository under the cache that holds fetched objects for one pin."""
    if (store / "HEAD").exists():
        return git.Repo(store)
    store.mkdir(parents=True, exist_ok=True)
    return git.Repo.init(store, bare=True)


def fetch_commit(store: Path, url: str, commit: str) -> git.Repo:
    """Fetch `commit` alone: depth 1, blob-less where the server allows it."""
    url = _normalize(url)
    repo = open_store(store)
    with repo.config_writer() as cfg:
        cfg.set_value('remote "origin"', "url", url)
        cfg.set_value('remote "origin"', "promisor", "true")
        cfg.set_value('remote "origin"', "partialclonefilter", "blob:none")
        cfg.set_value("extensions", "partialClone", "origin")
        cfg.set_value("core", "repositoryformatversion", "1")
    shallow = Path(repo.git_dir) / "shallow"
    if not (shallow.exists() and commit in shallow.read_text().split()):
        _git(repo, "fetch", "--quiet", "--no-tags", "--depth=1", "--filter=blob:none",
             "origin", commit)
    return repo


def list_tree(repo: git.Repo, commit: str, paths: tuple[str, ...]) -> dict[str, str]:
    """Path -> blob sha of every regular file under `paths` at `commit` (tree objects only, no
    blobs). Symbolic links are left out: their blob is a path, never code to read."""
    out = _git(repo, "ls-tree", "-r", "--full-tree", commit, "--", *paths)
    tree = {}
    for line in out.splitlines():
        meta, rel = line.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != SYMLINK_MODE:
            tree[rel] = sha
    return tree


def read_blobs(repo: git.Repo, commit: str, shas: list[str]) -> dict[str, bytes]:
    """The bytes of each blob, fetching the missing ones from origin in one batch first."""
    absent = _missing(repo, commit)
    missing = [s for s in shas if s in absent]
    if missing:
        _git(repo, "-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags",
             "--no-write-fetch-head", "--filter=blob:none", "origin", *missing)
    out = {}
    for sha in shas:
        out[sha] = repo.odb.stream(bytes.fromhex(sha)).read()
    return out


def _missing(repo: git.Repo, commit: str) -> set[str]:
    """Objects of `commit` not yet in the store, listed without triggering a lazy fetch."""
    out = _git(repo, "rev-list", "--objects", "--missing=print", commit)
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


class RemoteRef(NamedTuple):
    """What a tag or branch names at a remote."""

    sha: str
    """The commit."""
    name: str
    """The full ref name, such as `refs/tags/v1`."""


def remote_ref(url: str, ref: str) -> RemoteRef:
    """The commit and full name of the tag or branch `ref` at `url`."""
    if not ref or ref.startswith("-"):
        raise GitError(f"{ref!r} is not a tag or branch name")
    url = _normalize(url)
    try:
        out = git.cmd.Git().execute(["git", *SAFE_CONFIG, "ls-remote", "--", url, ref,
                                     f"{ref}^{{}}"], stdout_as_string=True, env=NO_PROMPT)
    except git.GitCommandError as e:
        raise GitError(f"git ls-remote failed: {(e.stderr or '').strip()[:300]}") from None
    rows = [line.split("\t") for line in out.splitlines() if line.strip()]
    peeled = [(sha, name.removesuffix("^{}")) for sha, name in rows if name.endswith("^{}")]
    if peeled or rows:
        sha, name = (peeled or [(rows[0][0], rows[0][1])])[0]
        return RemoteRef(sha, name)
    raise GitError(f"{ref!r} names nothing at {url}")


def reachable(url: str) -> bool:
    """Whether a git repository answers at `url` (`git ls-remote` of its HEAD)."""
    try:
        git.cmd.Git().execute(["git", *SAFE_CONFIG, "ls-remote", "--", _normalize(url), "HEAD"],
                              stdout_as_string=True, env=NO_PROMPT)
    except (git.GitCommandError, ReaderError):
        return False
    return True


def commit_date(repo: git.Repo, commit: str) -> str:
    """The committer date of a fetched commit, as YYYY-MM-DD."""
    return _git(repo, "show", "-s", "--format=%cs", commit).strip()


def _project_repo(root: Path, rev: str, path: Path) -> tuple[git.Repo, str]:
    """The project repository holding `root`, and `path` relative to its top; `rev` checked."""
    if not rev or rev.startswith("-") or any(c in rev for c in "\n\0"):
        raise GitError(f"{rev!r} is not a git revision")
    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitError(f"{root} is not inside a git repository") from None
    top = Path(repo.working_tree_dir or root).resolve()
    try:
        return repo, path.resolve().relative_to(top).as_posix()
    except ValueError:
        raise GitError(f"{path} is outside the repository at {top}") from None


def show_at(root: Path, rev: str, path: Path) -> str:
    """The text of `path` (a file of the project repository holding `root`) as committed at `rev`."""
    repo, rel = _project_repo(root, rev, path)
    return _git(repo, "cat-file", "blob", f"{rev}:{rel}")


def commit_of(root: Path, rev: str) -> str:
    """The full sha of the project's commit `rev` (`HEAD`, a branch, a short sha)."""
    repo, _ = _project_repo(root, rev, root)
    return _git(repo, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}").strip()


def pushed_commit(root: Path) -> str | None:
    """The newest commit of the project's HEAD that a remote-tracking branch holds (HEAD itself
    once pushed); None when the checkout has no remote-tracking branches; "" when none holds one."""
    repo, _ = _project_repo(root, "HEAD", root)
    remotes = set(_git(repo, "for-each-ref", "--format=%(objectname)", "refs/remotes").split())
    if not remotes:
        return None
    shared = set()
    for ref in remotes:
        try:
            shared.add(_git(repo, "merge-base", "HEAD", ref).strip())
        except GitError:  # unrelated histories
            pass
    if not shared:
        return ""
    return max(shared, key=lambda c: int(_git(repo, "show", "-s", "--format=%ct", c).strip()))


def folder_at(root: Path, rev: str, folder: Path) -> dict[str, str]:
    """{file name: text} of the files directly in `folder` of the project repository at `rev`."""
    repo, rel = _project_repo(root, rev, folder)
    names = _git(repo, "ls-tree", "--name-only", f"{rev}:{rel}").splitlines()
    return {name: _git(repo, "cat-file", "blob", f"{rev}:{rel}/{name}") for name in names}
