"""``torch.hub``: models published as a ``hubconf.py``, and weights downloaded on first use.

A *hub repository* is a directory (or a GitHub repository) whose ``hubconf.py`` defines
*entrypoints*: callables that build and return a model (or anything else). ``load`` imports
that file and calls one entrypoint; ``list`` names them and ``help`` returns one's docstring.
A ``dependencies`` list in ``hubconf.py`` names the modules it needs; a missing one is
reported before any entrypoint runs.

GitHub repositories are downloaded as a zip archive into the hub directory (``get_dir()``)
and reused from there. Running a repository's ``hubconf.py`` runs its code, so a repository
has to be *trusted* first (``trust_repo``): trusted repositories are listed one a line in
``<hub_dir>/trusted_list``.

``load_state_dict_from_url`` downloads a checkpoint once into ``<hub_dir>/checkpoints`` and
loads it with ``torch.load``. Every download goes through ``download_url_to_file``, which
writes a temporary file next to the destination and renames it only once the download is
complete (and its SHA-256 prefix checked): a broken download never replaces a good file.
Any URL that ``urllib`` opens works, ``file://`` included.
"""

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import uuid
import warnings
import zipfile
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

import torch

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
# `name-<hex digits>.ext`: the digits are a prefix of the file's SHA-256
HASH_REGEX = re.compile(r"-([a-f0-9]+)\.")
# repositories of these owners are trusted without asking
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")

_hub_dir = None


# ----------------------------------------------------------------------------------------
# the hub directory


def _get_torch_home():
    default = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, default))


def get_dir():
    """The directory where hub repositories and downloaded checkpoints are kept.

    ``set_dir``'s path when it was called, otherwise ``$TORCH_HOME/hub``; ``$TORCH_HOME``
    defaults to ``$XDG_CACHE_HOME/torch`` and ``$XDG_CACHE_HOME`` to ``~/.cache``.
    """
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Use the directory ``d`` (a ``str`` or path-like; ``~`` is expanded) as the hub
    directory from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


# ----------------------------------------------------------------------------------------
# downloads


def _urlopen(request):
    """The one place that opens URLs (tests replace it to stay off the network)."""
    return urlopen(request)


def _read_url(request):
    with _urlopen(request) as response:
        return response.read().decode(response.headers.get_content_charset("utf-8"))


class _Progress:
    """A one-line progress display on stderr (``tqdm`` is not needed)."""

    def __init__(self, total, enabled):
        self.total = total
        self.done = 0
        self.enabled = enabled

    @staticmethod
    def _size(n):
        for unit in ("B", "KiB", "MiB", "GiB"):
            if n < 1024 or unit == "GiB":
                return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
            n /= 1024
        return f"{n} B"  # not reached

    def update(self, n):
        self.done += n
        if not self.enabled:
            return
        if self.total:
            line = f"{self._size(self.done)} / {self._size(self.total)}"
            line += f" ({100 * self.done // self.total}%)"
        else:
            line = self._size(self.done)
        sys.stderr.write("\r" + line)
        sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _partial_file(dst):
    """A new, empty temporary file next to ``dst`` (same file system: the final rename is
    atomic), created with the usual permissions rather than ``mkstemp``'s private ones."""
    while True:
        path = f"{dst}.{uuid.uuid4().hex}.partial"
        try:
            return path, open(path, "xb")  # noqa: SIM115 (closed by the caller)
        except FileExistsError:
            continue


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download the object at ``url`` to the path ``dst``.

    The bytes go to a temporary file in ``dst``'s directory, which replaces ``dst`` only
    once the download is complete. With ``hash_prefix``, the file's SHA-256 (in hex) must
    start with it, or a ``RuntimeError`` is raised and ``dst`` is left untouched.
    ``progress`` shows the bytes received on stderr.
    """
    dst = os.path.expanduser(os.fspath(dst))
    tmp, f = _partial_file(dst)
    try:
        request = Request(url, headers={"User-Agent": "torch.hub"})
        with _urlopen(request) as response:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            bar = _Progress(total, progress)
            try:
                while True:
                    chunk = response.read(READ_DATA_CHUNK)
                    if not chunk:
                        break
                    f.write(chunk)
                    if sha256 is not None:
                        sha256.update(chunk)
                    bar.update(len(chunk))
            finally:
                bar.close()
        f.close()
        if sha256 is not None:
            digest = sha256.hexdigest()
            if not digest.startswith(hash_prefix):
                raise RuntimeError(
                    f'invalid hash value (expected "{hash_prefix}", got "{digest}") for the '
                    f"download of {url}"
                )
        os.replace(tmp, dst)
    finally:
        f.close()
        if os.path.exists(tmp):
            os.remove(tmp)


# ----------------------------------------------------------------------------------------
# zip archives


def _safe_extract_zip(zf, dest):
    """Extract every member of the open ZipFile ``zf`` into ``dest``; a member whose path is
    absolute or leads outside ``dest`` (``../``) is refused before anything is written."""
    root = os.path.realpath(dest)
    for member in zf.infolist():
        name = member.filename
        parts = re.split(r"[/\\]+", name)
        if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or ".." in parts:
            raise ValueError(f"unsafe path in zip archive: {name!r}")
        target = os.path.realpath(os.path.join(root, name))
        if os.path.commonpath([root, target]) != root:
            raise ValueError(f"unsafe path in zip archive: {name!r}")
    zf.extractall(root)


def _is_legacy_zip_format(filename):
    """A zip archive that holds exactly one file: how checkpoints were published before
    ``torch.save`` wrote zip archives itself (those hold several records)."""
    if not zipfile.is_zipfile(filename):
        return False
    with zipfile.ZipFile(filename) as zf:
        members = zf.infolist()
    return len(members) == 1 and not members[0].is_dir()


def _legacy_zip_load(filename, model_dir, map_location, weights_only):
    with zipfile.ZipFile(filename) as zf:
        member = zf.infolist()[0]
        _safe_extract_zip(zf, model_dir)
    extracted = os.path.join(model_dir, member.filename)
    return torch.load(extracted, map_location=map_location, weights_only=weights_only)


def _remove_if_exists(path):
    if os.path.isfile(path) or os.path.islink(path):
        os.remove(path)
    elif os.path.isdir(path):
        shutil.rmtree(path)


# ----------------------------------------------------------------------------------------
# checkpoints


def load_state_dict_from_url(
    url,
    model_dir=None,
    map_location=None,
    progress=True,
    check_hash=False,
    file_name=None,
    weights_only=False,
):
    """Load the checkpoint at ``url``, downloading it first unless it is already cached.

    The file is kept as ``<model_dir>/<file_name>``: ``model_dir`` defaults to
    ``<hub_dir>/checkpoints`` and ``file_name`` to the last part of the URL's path. A cached
    file is loaded without any download.

    ``check_hash=True`` verifies a download against the hash in its file name, PyTorch's
    convention ``name-<sha256 prefix>.ext`` (``resnet18-5c106cde.pth``: the file's SHA-256
    starts with ``5c106cde``).

    A zip archive that holds a single file (how checkpoints were published before PyTorch
    1.6) is extracted into ``model_dir`` and that file is loaded.

    ``map_location`` and ``weights_only`` are passed to ``torch.load``. As in PyTorch 2.13,
    ``weights_only`` defaults to ``False`` here: the checkpoint's pickle may run code, so
    pass ``weights_only=True`` for any file you do not trust.
    """
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    model_dir = os.path.expanduser(os.fspath(model_dir))
    os.makedirs(model_dir, exist_ok=True)

    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    if not filename:
        raise ValueError(f"cannot name the file for {url!r}: pass file_name=")
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            match = HASH_REGEX.search(filename)
            if match is None:
                warnings.warn(
                    f"check_hash=True, but the file name {filename!r} has no "
                    "'-<sha256 prefix>.' part: the download is not verified",
                    stacklevel=2,
                )
            else:
                hash_prefix = match.group(1)
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)

    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return torch.load(cached_file, map_location=map_location, weights_only=weights_only)


# ----------------------------------------------------------------------------------------
# hubconf.py


@contextlib.contextmanager
def _add_to_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(path)


def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no {MODULE_HUBCONF} in {repo_dir}")
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _module_exists(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a missing parent package, or a bad name
        return False


def _check_dependencies(module):
    dependencies = getattr(module, VAR_DEPENDENCY, None)
    if dependencies is None:
        return
    missing = [name for name in dependencies if not _module_exists(name)]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _load_entry_from_hubconf(module, model):
    if not isinstance(model, str):
        raise ValueError(f"Invalid input: model should be the name of an entrypoint, got {model!r}")
    _check_dependencies(module)
    entry = getattr(module, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry


def _load_local(hubconf_dir, model, *args, **kwargs):
    with _add_to_sys_path(hubconf_dir):
        module = _import_hubconf(hubconf_dir)
        entry = _load_entry_from_hubconf(module, model)
        return entry(*args, **kwargs)


# ----------------------------------------------------------------------------------------
# GitHub repositories


def _git_archive_link(repo_owner, repo_name, ref):
    return f"https://github.com/{repo_owner}/{repo_name}/zipball/{ref}"


def _parse_repo_info(github):
    """``"owner/name[:ref]"`` -> (owner, name, ref). Without a ref, the default branch is
    ``main`` when the repository has one, otherwise ``master``."""
    repo_info, sep, ref = github.partition(":")
    parts = repo_info.split("/")
    if len(parts) != 2 or not all(parts) or (sep and not ref):
        raise ValueError(f'Invalid GitHub repository {github!r}: expected "owner/name[:ref]"')
    repo_owner, repo_name = parts
    if ref:
        return repo_owner, repo_name, ref
    try:
        with _urlopen(f"https://github.com/{repo_owner}/{repo_name}/tree/main/"):
            ref = "main"
    except HTTPError as e:
        if e.code != 404:
            raise
        ref = "master"
    except URLError as e:
        # offline: a cached copy of either branch will do
        for candidate in ("main", "master"):
            if os.path.exists(os.path.join(get_dir(), f"{repo_owner}_{repo_name}_{candidate}")):
                return repo_owner, repo_name, candidate
        raise RuntimeError(
            f"GitHub could not be reached and {repo_owner}/{repo_name} is not in the hub "
            f"cache ({get_dir()})"
        ) from e
    return repo_owner, repo_name, ref


def _validate_not_a_forked_repo(repo_owner, repo_name, ref):
    """``ref`` must be a branch, a tag or a commit of ``owner/name`` itself: GitHub serves
    a fork's commits under the parent's name too, which would run a stranger's code under
    a trusted name. Asks GitHub's API (``$GITHUB_TOKEN`` authenticates, if set)."""
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token:
        headers["Authorization"] = f"token {token}"
    for kind in ("branches", "tags"):
        page = 1
        while True:
            url = f"https://api.github.com/repos/{repo_owner}/{repo_name}/{kind}"
            url += f"?per_page=100&page={page}"
            try:
                entries = json.loads(_read_url(Request(url, headers=headers)))
            except HTTPError:
                if "Authorization" not in headers:
                    raise
                # the token may lack the rights for this repository: try without it
                del headers["Authorization"]
                entries = json.loads(_read_url(Request(url, headers=headers)))
            if not entries:
                break
            for entry in entries:
                if entry["name"] == ref or entry["commit"]["sha"].startswith(ref):
                    return
            page += 1
    raise ValueError(
        f"Cannot find {ref} in https://github.com/{repo_owner}/{repo_name}. If it is a commit "
        "of a fork, load the fork's repository instead."
    )


def _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo, calling_fn):
    if trust_repo not in (True, False, None, "check"):
        raise ValueError(f"trust_repo must be True, False, None or 'check', not {trust_repo!r}")
    hub_dir = get_dir()
    trusted_file = os.path.join(hub_dir, "trusted_list")
    trusted = ()
    if os.path.exists(trusted_file):
        with open(trusted_file) as f:
            trusted = tuple(line.strip() for line in f)
    owner_name = f"{repo_owner}_{repo_name}"
    # a repository downloaded before the trusted list existed counts as trusted
    cached = os.path.isdir(os.path.join(hub_dir, owner_name_branch))
    is_trusted = owner_name in trusted or cached or repo_owner in _TRUSTED_REPO_OWNERS

    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        answer = input(
            f"The repository {owner_name} is not in the list of trusted repositories "
            f"({trusted_file}); loading it runs its code. Do you trust this repository and "
            "want to add it to the trusted list (y/N)? "
        )
        answer = answer.strip().lower()
        if answer in ("n", "no", ""):
            raise RuntimeError(f"Untrusted repository: {repo_owner}/{repo_name}")
        if answer not in ("y", "yes"):
            raise ValueError(f"Unrecognized response {answer!r}: answer y or n")
    elif trust_repo is None and not is_trusted:
        warnings.warn(
            f"{calling_fn}: downloading and running the code of {repo_owner}/{repo_name}, "
            "which is not in the trusted list, because trust_repo=None. Pass "
            "trust_repo='check' (asks once, then remembers), True or False (always asks).",
            stacklevel=4,
        )

    if not is_trusted:
        os.makedirs(hub_dir, exist_ok=True)
        with open(trusted_file, "a") as f:
            f.write(owner_name + "\n")


def _get_cache_or_reload(
    github, force_reload, trust_repo, calling_fn, verbose=True, skip_validation=False
):
    """The local directory of the GitHub repository ``github`` ("owner/name[:ref]"),
    downloaded into the hub directory unless a copy is there already."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    repo_owner, repo_name, ref = _parse_repo_info(github)
    # branch names may contain '/', which must not become a path
    normalized_ref = ref.replace("/", "_")
    owner_name_branch = f"{repo_owner}_{repo_name}_{normalized_ref}"
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo, calling_fn)

    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir

    if not skip_validation:
        _validate_not_a_forked_repo(repo_owner, repo_name, ref)

    cached_zip = os.path.join(hub_dir, normalized_ref + ".zip")
    _remove_if_exists(cached_zip)
    url = _git_archive_link(repo_owner, repo_name, ref)
    sys.stderr.write(f'Downloading: "{url}" to {cached_zip}\n')
    try:
        download_url_to_file(url, cached_zip, progress=False)
    except HTTPError as e:
        if e.code != 300:
            raise
        # 300 Multiple Choices: `ref` names both a branch and a tag; like git, take the branch
        warnings.warn(
            f"The ref {ref} is ambiguous (a branch and a tag?): loading the branch. Pass "
            "refs/heads/<name> or refs/tags/<name> (with skip_validation=True) to choose.",
            stacklevel=3,
        )
        url = _git_archive_link(repo_owner, repo_name, f"refs/heads/{ref}")
        download_url_to_file(url, cached_zip, progress=False)

    # GitHub's archive holds one folder, "<owner>-<name>-<sha>/": extracted on the side,
    # then renamed to the cache's name for this repository and ref
    staging = os.path.join(hub_dir, f".{owner_name_branch}.{uuid.uuid4().hex}.extract")
    try:
        with zipfile.ZipFile(cached_zip) as zf:
            _safe_extract_zip(zf, staging)
        top = os.listdir(staging)
        source = os.path.join(staging, top[0]) if len(top) == 1 else staging
        if not os.path.isdir(source):
            source = staging
        _remove_if_exists(repo_dir)
        shutil.move(source, repo_dir)
    finally:
        _remove_if_exists(staging)
        _remove_if_exists(cached_zip)
    return repo_dir


# ----------------------------------------------------------------------------------------
# the public entry points


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The names of the entrypoints of the GitHub repository ``github``
    (``"owner/name[:ref]"``): the callables of its ``hubconf.py`` whose names do not start
    with ``_``, sorted. See ``load`` for the other arguments."""
    repo_dir = _get_cache_or_reload(
        github, force_reload, trust_repo, "list", verbose=verbose, skip_validation=skip_validation
    )
    with _add_to_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return [
        name
        for name in sorted(dir(module))
        if not name.startswith("_") and callable(getattr(module, name))
    ]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of the entrypoint ``model`` of the GitHub repository ``github``
    (``"owner/name[:ref]"``). See ``load`` for the other arguments."""
    repo_dir = _get_cache_or_reload(
        github, force_reload, trust_repo, "help", verbose=True, skip_validation=skip_validation
    )
    with _add_to_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return _load_entry_from_hubconf(module, model).__doc__


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo="check",
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Call the entrypoint ``model`` of a hub repository with ``*args`` and ``**kwargs`` and
    return what it returns.

    Args:
        repo_or_dir: with ``source="github"``, a GitHub repository ``"owner/name[:ref]"``
            (``ref`` is a branch, a tag or a commit; by default ``main`` if the repository
            has that branch, otherwise ``master``); with ``source="local"``, the path of a
            directory that holds a ``hubconf.py``.
        model: the name of a callable defined in ``hubconf.py``.
        source: ``"github"`` or ``"local"``.
        trust_repo: GitHub only. ``"check"`` (the default): a repository in the trusted list
            (``<hub_dir>/trusted_list``), already in the cache, or owned by ``pytorch``,
            ``facebookresearch``, ``facebookincubator`` or ``fairinternal`` loads at once;
            any other asks on the terminal and, on "y", is added to the list. ``False``: ask
            even when trusted. ``True``: trust it without asking (and add it to the list).
            ``None``: like ``True``, with a warning when the repository is not trusted yet.
        force_reload: GitHub only: download the repository again even when cached.
        verbose: GitHub only: ``False`` hides the message about using the cache.
        skip_validation: GitHub only: do not ask GitHub's API whether ``ref`` belongs to the
            repository itself rather than to a fork.

    Before calling the entrypoint, the modules named in ``hubconf.py``'s ``dependencies``
    list must be importable, or a ``RuntimeError`` names the missing ones. The repository's
    directory is first on ``sys.path`` while ``hubconf.py`` and the entrypoint run.
    """
    source = source.lower() if isinstance(source, str) else source
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _get_cache_or_reload(
            repo_or_dir, force_reload, trust_repo, "load", verbose, skip_validation
        )
    return _load_local(os.fspath(repo_or_dir), model, *args, **kwargs)
