"""torch.hub: the hub directory, downloads (file:// URLs), checkpoints from URLs, local
hubconf.py repositories, and GitHub repositories served from local files (``urlopen`` is
replaced, so nothing here touches the network)."""

import builtins
import fractions
import hashlib
import json
import os
import pickle
import sys
import textwrap
import urllib.request
import zipfile
from urllib.error import HTTPError, URLError
from urllib.request import Request

import pytest

import torch
import torch.hub

REAL_URLOPEN = urllib.request.urlopen


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    d = tmp_path / "hub"
    torch.hub.set_dir(str(d))
    return d


def write_hubconf(directory, body):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "hubconf.py").write_text(textwrap.dedent(body))
    return directory


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------------------
# the hub directory


def test_get_dir_follows_torch_home(monkeypatch, tmp_path):
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert torch.hub.get_dir() == os.path.join(str(tmp_path / "th"), "hub")


def test_get_dir_defaults_to_the_cache_home(monkeypatch, tmp_path):
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert torch.hub.get_dir() == os.path.join(str(tmp_path / "xdg"), "torch", "hub")
    monkeypatch.delenv("XDG_CACHE_HOME")
    expected = os.path.join(os.path.expanduser("~"), ".cache", "torch", "hub")
    assert torch.hub.get_dir() == expected


def test_set_dir_wins_over_the_environment(monkeypatch, tmp_path):
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    torch.hub.set_dir(str(tmp_path / "mine"))
    assert torch.hub.get_dir() == str(tmp_path / "mine")


def test_hub_is_an_attribute_of_torch():
    assert torch.hub.load is not None
    assert callable(torch.hub.load_state_dict_from_url)


# --------------------------------------------------------------------------------------
# download_url_to_file


def test_download_file_url(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(300_000))  # several read chunks
    dst = tmp_path / "out" / "dst.bin"
    dst.parent.mkdir()
    torch.hub.download_url_to_file(src.as_uri(), str(dst), progress=False)
    assert dst.read_bytes() == src.read_bytes()
    assert os.listdir(dst.parent) == ["dst.bin"]  # no temporary file left


def test_download_checks_the_hash_prefix(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"some weights")
    digest = sha256(src)
    dst = tmp_path / "dst.bin"
    torch.hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=digest[:10], progress=False)
    assert dst.read_bytes() == b"some weights"


def test_download_with_a_wrong_hash_keeps_the_old_file(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"new bytes")
    out = tmp_path / "out"
    out.mkdir()
    dst = out / "dst.bin"
    dst.write_bytes(b"good old file")
    wrong = "0" * 8 if not sha256(src).startswith("0" * 8) else "1" * 8
    with pytest.raises(RuntimeError, match="invalid hash value"):
        torch.hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=wrong, progress=False)
    assert dst.read_bytes() == b"good old file"
    assert os.listdir(out) == ["dst.bin"]


def test_download_progress_goes_to_stderr(tmp_path, capfd):
    src = tmp_path / "src.bin"
    src.write_bytes(b"x" * 5000)
    torch.hub.download_url_to_file(src.as_uri(), str(tmp_path / "dst.bin"), progress=True)
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err != ""


def test_download_of_a_missing_url_leaves_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(URLError):
        torch.hub.download_url_to_file(
            (tmp_path / "absent.bin").as_uri(), str(out / "dst.bin"), progress=False
        )
    assert os.listdir(out) == []


# --------------------------------------------------------------------------------------
# load_state_dict_from_url


@pytest.fixture
def checkpoint(tmp_path):
    """A checkpoint in a "server" folder, named with its hash like published weights."""
    server = tmp_path / "server"
    server.mkdir()
    state = {"weight": torch.arange(6.0).reshape(2, 3), "bias": torch.tensor([1, 2])}
    plain = server / "plain.pth"
    torch.save(state, plain)
    named = server / f"model-{sha256(plain)[:8]}.pth"
    plain.rename(named)
    return state, named


def assert_state_equal(loaded, state):
    assert sorted(loaded) == sorted(state)
    for key, value in state.items():
        assert torch.equal(loaded[key], value)


def test_load_state_dict_from_url_downloads_into_the_hub_checkpoints(hub_dir, checkpoint):
    state, path = checkpoint
    loaded = torch.hub.load_state_dict_from_url(path.as_uri(), progress=False)
    assert_state_equal(loaded, state)
    cached = hub_dir / "checkpoints" / path.name
    assert cached.read_bytes() == path.read_bytes()


def test_load_state_dict_from_url_uses_the_cache(hub_dir, checkpoint, tmp_path):
    state, path = checkpoint
    model_dir = tmp_path / "models"
    torch.hub.load_state_dict_from_url(path.as_uri(), model_dir=str(model_dir), progress=False)
    path.unlink()  # the "server" is gone: only the cache can answer
    loaded = torch.hub.load_state_dict_from_url(
        path.as_uri(), model_dir=str(model_dir), progress=False
    )
    assert_state_equal(loaded, state)
    assert not (hub_dir / "checkpoints").exists()


def test_load_state_dict_from_url_file_name_and_map_location(hub_dir, checkpoint, tmp_path):
    state, path = checkpoint
    loaded = torch.hub.load_state_dict_from_url(
        path.as_uri(),
        model_dir=str(tmp_path / "m"),
        file_name="renamed.pt",
        map_location="cpu",
        progress=False,
    )
    assert_state_equal(loaded, state)
    assert os.listdir(tmp_path / "m") == ["renamed.pt"]


def test_check_hash_accepts_the_right_file(hub_dir, checkpoint):
    state, path = checkpoint
    loaded = torch.hub.load_state_dict_from_url(path.as_uri(), check_hash=True, progress=False)
    assert_state_equal(loaded, state)


def test_check_hash_refuses_a_file_whose_name_lies(hub_dir, checkpoint, tmp_path):
    _, path = checkpoint
    digest = sha256(path)
    wrong = "0" * 8 if not digest.startswith("0" * 8) else "1" * 8
    liar = path.with_name(f"model-{wrong}.pth")
    path.rename(liar)
    with pytest.raises(RuntimeError, match="invalid hash value"):
        torch.hub.load_state_dict_from_url(liar.as_uri(), check_hash=True, progress=False)
    assert os.listdir(hub_dir / "checkpoints") == []
    # without check_hash the same file is accepted
    torch.hub.load_state_dict_from_url(liar.as_uri(), progress=False)


@pytest.mark.ours_only
def test_check_hash_without_a_hash_in_the_name_warns(hub_dir, checkpoint, tmp_path):
    _, path = checkpoint
    plain = path.with_name("plain.pth")
    path.rename(plain)
    with pytest.warns(UserWarning, match="not verified"):
        torch.hub.load_state_dict_from_url(plain.as_uri(), check_hash=True, progress=False)


def test_weights_only_defaults_to_false_and_is_passed_through(hub_dir, tmp_path):
    # PyTorch 2.13's default for load_state_dict_from_url: weights_only=False
    src = tmp_path / "obj.pth"
    torch.save({"w": torch.ones(2), "frac": fractions.Fraction(1, 3)}, src)
    loaded = torch.hub.load_state_dict_from_url(src.as_uri(), progress=False)
    assert loaded["frac"] == fractions.Fraction(1, 3)
    with pytest.raises(pickle.UnpicklingError):
        torch.hub.load_state_dict_from_url(src.as_uri(), progress=False, weights_only=True)
    plain = tmp_path / "plain.pth"
    torch.save({"w": torch.ones(2)}, plain)
    loaded = torch.hub.load_state_dict_from_url(plain.as_uri(), progress=False, weights_only=True)
    assert torch.equal(loaded["w"], torch.ones(2))


# PyTorch deprecates the format with a FutureWarning; this project reads it silently
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_zip_with_one_checkpoint(hub_dir, tmp_path):
    state = {"w": torch.tensor([1.5, -2.0])}
    inner = tmp_path / "inner.pth"
    torch.save(state, inner)
    archive = tmp_path / "published.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(inner, "weights.pth")
    model_dir = tmp_path / "m"
    loaded = torch.hub.load_state_dict_from_url(
        archive.as_uri(), model_dir=str(model_dir), progress=False
    )
    assert_state_equal(loaded, state)
    assert (model_dir / "weights.pth").read_bytes() == inner.read_bytes()


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_zip_may_not_escape_the_model_dir(hub_dir, tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../escaped.pth", b"not a checkpoint")
    with pytest.raises(ValueError):
        torch.hub.load_state_dict_from_url(
            archive.as_uri(), model_dir=str(tmp_path / "m"), progress=False
        )
    assert not (tmp_path / "escaped.pth").exists()


# --------------------------------------------------------------------------------------
# local hubconf.py repositories

HUBCONF = """
    '''A test repository.'''
    import torch

    from helper import scale  # a module next to hubconf.py

    dependencies = ["torch", "json"]


    def filled(n, value=1.0):
        '''A tensor of n values.'''
        return torch.full((n,), value) * scale


    def _private():
        return "hidden"


    not_callable = 3
"""


@pytest.fixture
def local_repo(tmp_path):
    repo = write_hubconf(tmp_path / "repo", HUBCONF)
    (repo / "helper.py").write_text("scale = 2.0\n")
    yield repo
    sys.modules.pop("helper", None)


def test_load_local_calls_the_entrypoint(local_repo):
    path_before = list(sys.path)
    out = torch.hub.load(str(local_repo), "filled", 3, source="local", value=0.5)
    assert torch.equal(out, torch.full((3,), 1.0))
    assert sys.path == path_before


@pytest.mark.ours_only  # PyTorch puts the Path itself on sys.path, where imports ignore it
def test_load_local_accepts_a_path_object(local_repo):
    out = torch.hub.load(local_repo, "filled", 2, source="local")
    assert torch.equal(out, torch.full((2,), 2.0))


def test_load_local_missing_dependencies(tmp_path):
    repo = write_hubconf(
        tmp_path / "deps",
        """
        dependencies = ["json", "no_such_module_xyz", "no_such_other_xyz"]

        def model():
            return 1
        """,
    )
    with pytest.raises(RuntimeError, match="no_such_module_xyz, no_such_other_xyz"):
        torch.hub.load(str(repo), "model", source="local")


@pytest.mark.ours_only  # PyTorch lets find_spec's ModuleNotFoundError through
def test_load_local_missing_dotted_dependency(tmp_path):
    repo = write_hubconf(
        tmp_path / "deps",
        """
        dependencies = ["os.path", "no_such_pkg_xyz.sub"]

        def model():
            return 1
        """,
    )
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_pkg_xyz.sub$"):
        torch.hub.load(str(repo), "model", source="local")


def test_load_local_unknown_entrypoint(local_repo):
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        torch.hub.load(str(local_repo), "nope", source="local")
    with pytest.raises(RuntimeError, match="Cannot find callable not_callable"):
        torch.hub.load(str(local_repo), "not_callable", source="local")
    with pytest.raises(ValueError):
        torch.hub.load(str(local_repo), 3, source="local")


def test_load_unknown_source(local_repo):
    with pytest.raises(ValueError, match="Unknown source"):
        torch.hub.load(str(local_repo), "filled", source="gitlab")


def test_load_local_without_hubconf(tmp_path):
    with pytest.raises(FileNotFoundError):
        torch.hub.load(str(tmp_path), "model", source="local")


# --------------------------------------------------------------------------------------
# GitHub repositories, served from local files

ENTRY = """
    import torch

    dependencies = ["torch"]


    def ones(n):
        '''Ones, from {where}.'''
        return torch.ones(n)


    def _helper():
        pass
"""


class FakeGitHub:
    """Replaces ``torch.hub.urlopen``: GitHub's pages, API and archives from local files."""

    def __init__(self, tmp_path, owner="alice", name="models"):
        self.tmp = tmp_path / "github"
        self.tmp.mkdir(exist_ok=True)
        self.owner, self.name = owner, name
        self.routes = {}
        self.requests = []
        self.branches = ["master"]
        self.tags = ["v1.0"]
        self.has_main = False

    def add_archive(self, ref, where):
        """The zipball of ``ref``: one folder "<owner>-<name>-<sha>/" as GitHub makes it."""
        archive = self.tmp / f"{ref.replace('/', '_')}.zip"
        top = f"{self.owner}-{self.name}-0123abc/"
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr(top, b"")
            zf.writestr(top + "hubconf.py", textwrap.dedent(ENTRY.format(where=where)))
        url = f"https://github.com/{self.owner}/{self.name}/zipball/{ref}"
        self.routes[url] = archive

    def _api(self, kind):
        names = self.branches if kind == "branches" else self.tags
        return [{"name": n, "commit": {"sha": "deadbeef" + n.encode().hex()}} for n in names]

    def __call__(self, request, *args, **kwargs):
        url = request.full_url if isinstance(request, Request) else request
        self.requests.append(url)
        base = f"{self.owner}/{self.name}"
        if url == f"https://github.com/{base}/tree/main/":
            if not self.has_main:
                raise HTTPError(url, 404, "Not Found", None, None)
            return REAL_URLOPEN(self._file("main.html", b"<html></html>").as_uri())
        for kind in ("branches", "tags"):
            prefix = f"https://api.github.com/repos/{base}/{kind}?per_page=100&page="
            if url.startswith(prefix):
                entries = self._api(kind) if url.endswith("page=1") else []
                data = json.dumps(entries).encode()
                return REAL_URLOPEN(self._file(f"{kind}.json", data).as_uri())
        if url in self.routes:
            return REAL_URLOPEN(self.routes[url].as_uri())
        raise HTTPError(url, 404, "Not Found", None, None)

    def _file(self, name, data):
        path = self.tmp / name
        path.write_bytes(data)
        return path

    def archive_requests(self):
        return [u for u in self.requests if "/zipball/" in u]

    def api_requests(self):
        return [u for u in self.requests if u.startswith("https://api.github.com/")]


@pytest.fixture
def github(tmp_path, monkeypatch, hub_dir):
    fake = FakeGitHub(tmp_path)
    monkeypatch.setattr(torch.hub, "urlopen", fake)
    return fake


@pytest.fixture
def no_prompt(monkeypatch):
    def refuse(prompt=""):
        raise AssertionError(f"unexpected prompt: {prompt}")

    monkeypatch.setattr(builtins, "input", refuse)


def test_github_load_downloads_the_default_branch(github, hub_dir, no_prompt):
    github.add_archive("master", "master")
    out = torch.hub.load("alice/models", "ones", 3, trust_repo=True)
    assert torch.equal(out, torch.ones(3))
    assert github.archive_requests() == ["https://github.com/alice/models/zipball/master"]
    assert (hub_dir / "alice_models_master" / "hubconf.py").is_file()
    assert (hub_dir / "trusted_list").read_text().split() == ["alice_models"]
    # the archive is removed once extracted
    assert sorted(os.listdir(hub_dir)) == ["alice_models_master", "trusted_list"]


def test_github_main_branch_is_preferred(github, hub_dir):
    github.has_main = True
    github.branches = ["main", "master"]
    github.add_archive("main", "main")
    assert torch.hub.help("alice/models", "ones", trust_repo=True) == "Ones, from main."
    assert github.archive_requests() == ["https://github.com/alice/models/zipball/main"]


def test_github_explicit_ref_and_validation(github, hub_dir):
    github.add_archive("v1.0", "the tag")
    doc = torch.hub.help("alice/models:v1.0", "ones", trust_repo=True)
    assert doc == "Ones, from the tag."
    assert (hub_dir / "alice_models_v1.0").is_dir()
    # the ref was checked against the repository's branches, then tags
    api = github.api_requests()
    assert any("/branches?" in u for u in api) and any("/tags?" in u for u in api)
    assert not any("/tree/main/" in u for u in github.requests)  # ref given: no probe


def test_github_ref_of_a_fork_is_refused(github, hub_dir):
    github.add_archive("evil", "a fork")
    with pytest.raises(ValueError, match="Cannot find evil"):
        torch.hub.load("alice/models:evil", "ones", 1, trust_repo=True)
    assert github.archive_requests() == []
    # skip_validation downloads without asking the API
    github.requests.clear()
    out = torch.hub.load("alice/models:evil", "ones", 1, trust_repo=True, skip_validation=True)
    assert torch.equal(out, torch.ones(1))
    assert github.api_requests() == []


def test_github_branch_with_a_slash(github, hub_dir):
    github.branches = ["feature/x"]
    github.add_archive("feature/x", "a feature branch")
    assert torch.hub.list("alice/models:feature/x", trust_repo=True) == ["ones"]
    assert (hub_dir / "alice_models_feature_x").is_dir()


def test_github_cache_and_force_reload(github, hub_dir, capsys):
    github.add_archive("master", "first")
    torch.hub.load("alice/models", "ones", 1, trust_repo=True)
    assert len(github.archive_requests()) == 1
    github.add_archive("master", "second")
    assert torch.hub.help("alice/models", "ones") == "Ones, from first."  # cached
    assert len(github.archive_requests()) == 1
    assert "Using cache found in" in capsys.readouterr().err
    torch.hub.list("alice/models", verbose=False)
    assert "Using cache" not in capsys.readouterr().err
    assert torch.hub.help("alice/models", "ones", force_reload=True) == "Ones, from second."
    assert len(github.archive_requests()) == 2


def test_github_list(github):
    github.add_archive("master", "x")
    assert torch.hub.list("alice/models", trust_repo=True) == ["ones"]


def test_trust_check_asks_and_remembers(github, hub_dir, monkeypatch):
    github.add_archive("master", "x")
    prompts = []

    def answer(prompt=""):
        prompts.append(prompt)
        return "y"

    monkeypatch.setattr(builtins, "input", answer)
    torch.hub.load("alice/models", "ones", 1)  # trust_repo="check" by default
    assert len(prompts) == 1 and "alice_models" in prompts[0]
    assert (hub_dir / "trusted_list").read_text().split() == ["alice_models"]
    torch.hub.load("alice/models", "ones", 1, force_reload=True)  # trusted now: no prompt
    assert len(prompts) == 1


def test_trust_check_refused(github, hub_dir, monkeypatch):
    github.add_archive("master", "x")
    monkeypatch.setattr(builtins, "input", lambda prompt="": "n")
    with pytest.raises(Exception, match="Untrusted repository"):
        torch.hub.load("alice/models", "ones", 1)
    assert github.archive_requests() == []
    assert not (hub_dir / "alice_models_master").exists()
    monkeypatch.setattr(builtins, "input", lambda prompt="": "maybe")
    with pytest.raises(ValueError):
        torch.hub.load("alice/models", "ones", 1, trust_repo="check")


def test_trust_false_always_asks(github, hub_dir, monkeypatch):
    github.add_archive("master", "x")
    hub_dir.mkdir(parents=True)
    (hub_dir / "trusted_list").write_text("alice_models\n")
    prompts = []
    monkeypatch.setattr(builtins, "input", lambda prompt="": prompts.append(prompt) or "yes")
    torch.hub.load("alice/models", "ones", 1, trust_repo=False)
    assert len(prompts) == 1
    assert (hub_dir / "trusted_list").read_text().split() == ["alice_models"]  # not twice


def test_trusted_owners_and_cached_repos_need_no_prompt(tmp_path, monkeypatch, hub_dir, no_prompt):
    fake = FakeGitHub(tmp_path, owner="pytorch", name="vision")
    fake.add_archive("master", "x")
    monkeypatch.setattr(torch.hub, "urlopen", fake)
    torch.hub.load("pytorch/vision", "ones", 1)
    # a repository already in the cache counts as trusted
    write_hubconf(hub_dir / "bob_nets_master", ENTRY.format(where="cache"))
    assert torch.hub.help("bob/nets", "ones") == "Ones, from cache."


@pytest.mark.ours_only
def test_trust_none_warns_for_an_untrusted_repo(github, hub_dir, no_prompt):
    github.add_archive("master", "x")
    with pytest.warns(UserWarning, match="not in the trusted list"):
        torch.hub.load("alice/models", "ones", 1, trust_repo=None)
    assert (hub_dir / "trusted_list").read_text().split() == ["alice_models"]


def test_github_offline_uses_the_cache(monkeypatch, hub_dir, no_prompt):
    def offline(*args, **kwargs):
        raise URLError("no network")

    monkeypatch.setattr(torch.hub, "urlopen", offline)
    write_hubconf(hub_dir / "carol_nets_main", ENTRY.format(where="offline cache"))
    (hub_dir / "trusted_list").write_text("carol_nets\n")
    assert torch.hub.help("carol/nets", "ones") == "Ones, from offline cache."
    with pytest.raises(RuntimeError):
        torch.hub.help("dave/nets", "ones", trust_repo=True)


@pytest.mark.ours_only
def test_github_bad_repository_name(hub_dir):
    with pytest.raises(ValueError, match="owner/name"):
        torch.hub.load("just-a-name", "model", trust_repo=True)
    with pytest.raises(ValueError, match="trust_repo"):
        torch.hub.load("alice/models:main", "model", trust_repo="always")


def test_github_archive_may_not_escape_the_hub_dir(github, hub_dir, tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("alice-models-0123abc/", b"")
        zf.writestr("alice-models-0123abc/../../escaped.py", b"print('escaped')")
    github.routes["https://github.com/alice/models/zipball/master"] = archive
    with pytest.raises(ValueError):
        torch.hub.load("alice/models", "ones", 1, trust_repo=True)
    assert not (tmp_path / "escaped.py").exists()
    assert not (hub_dir / "escaped.py").exists()


@pytest.mark.ours_only
def test_github_failed_extraction_leaves_no_debris(github, hub_dir, tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../x.py", b"")
    github.routes["https://github.com/alice/models/zipball/master"] = archive
    with pytest.raises(ValueError):
        torch.hub.load("alice/models", "ones", 1, trust_repo=True)
    assert sorted(os.listdir(hub_dir)) == ["trusted_list"]
