"""``numtorch.hub`` (mirrors ``torch.hub``), offline: numtorch never downloads.

Files are found in the hub cache directory, as PyTorch would have left them there after a download:

* ``get_dir()`` is ``$TORCH_HOME/hub`` (``$TORCH_HOME`` defaults to ``$XDG_CACHE_HOME/torch``, that to
  ``~/.cache/torch``), or what ``set_dir(d)`` set;
* ``load_state_dict_from_url(url)`` loads ``<get_dir()>/checkpoints/<file name of url>`` (or
  ``model_dir``/``file_name`` when given) with ``torch.load``; when the file is not there it raises
  ``urllib.error.URLError`` naming the URL and the path to put the file at (download it on a machine
  with network access and copy it there);
* ``download_url_to_file`` always raises that error; ``load``/``list``/``help`` work with
  ``source="local"`` (a directory with a ``hubconf.py``) and, for ``source="github"``, with a repository
  already unpacked in the cache as ``<get_dir()>/<owner>_<repo>_<ref>``.
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import sys
import warnings
import zipfile
from urllib.error import URLError
from urllib.parse import urlparse

from .serialization import load as _torch_load
from .utils import model_zoo as _model_zoo
from .utils.model_zoo import tqdm  # noqa: F401 - torch.hub.tqdm

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"

_hub_dir = None


def _get_torch_home() -> str:
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR),
                                                                     "torch")))


def get_dir() -> str:
    """The hub cache directory: ``set_dir``'s value, else ``$TORCH_HOME/hub``."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    return _hub_dir if _hub_dir is not None else os.path.join(_get_torch_home(), "hub")


def set_dir(d) -> None:
    """Set the hub cache directory (``~`` is expanded)."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def _offline(url, dst):
    return URLError(f"numtorch has no network access: it cannot download {url!r}. Download that file on a machine "
                    f"with network access and place it at {dst!r} (the hub cache directory is torch.hub.get_dir() = "
                    f"{get_dir()!r}; checkpoints go in its 'checkpoints' folder, or set TORCH_HOME or call "
                    "torch.hub.set_dir), then run again")


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Always raises ``urllib.error.URLError``: numtorch does not download. The message says where to put the file."""
    raise _offline(url, dst)


def _is_legacy_zip_format(filename: str) -> bool:
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infolist = zf.infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None, weights_only: bool = False):
    """Load the checkpoint that ``url`` names from the hub cache (``<get_dir()>/checkpoints/<file name>``).

    Raises ``urllib.error.URLError`` (saying where to put the file) when it is not in the cache.
    A zip holding a single file (PyTorch's pre-1.6 format) is unpacked next to it first, as PyTorch does.
    """
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    cached_file = os.path.join(model_dir, file_name if file_name is not None else os.path.basename(urlparse(url).path))
    if not os.path.exists(cached_file):
        download_url_to_file(url, cached_file, None, progress=progress)
    if _is_legacy_zip_format(cached_file):
        with zipfile.ZipFile(cached_file) as f:
            member = f.infolist()[0]
            target = os.path.realpath(os.path.join(model_dir, member.filename))
            if not target.startswith(os.path.realpath(model_dir) + os.sep):
                raise ValueError(f"{member.filename} is outside of the extraction directory {model_dir}")
            f.extract(member, model_dir)
        cached_file = target
    return _torch_load(cached_file, map_location=map_location, weights_only=weights_only)


# ---- hub.load / list / help: a hubconf.py from a local directory or the cache ----------------------
def _repo_dir(repo_or_dir, source):
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "local":
        return repo_or_dir
    repo_info, _, ref = repo_or_dir.partition(":")
    owner, name = repo_info.split("/")
    for r in ([ref] if ref else ["main", "master"]):
        path = os.path.join(get_dir(), "_".join([owner, name, r.replace("/", "_")]))
        if os.path.isdir(path):
            return path
    where = os.path.join(get_dir(), f"{owner}_{name}_{(ref or 'main').replace('/', '_')}")
    raise _offline(f"https://github.com/{repo_info}", where + " (the repository's files, unpacked)")


@contextlib.contextmanager
def _hubconf(repo_dir):
    sys.path.insert(0, repo_dir)
    try:
        spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        missing = [p for p in getattr(module, VAR_DEPENDENCY, []) if importlib.util.find_spec(p) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
        yield module
    finally:
        sys.path.remove(repo_dir)


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(module, model, None) if model in dir(module) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """Names of the callable entry points in the repository's ``hubconf.py`` (from the cache)."""
    with _hubconf(_repo_dir(github, "github")) as m:
        return [f for f in dir(m) if callable(getattr(m, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """The docstring of entry point ``model`` (from the cache)."""
    with _hubconf(_repo_dir(github, "github")) as m:
        return _entry(m, model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Call entry point ``model`` of ``hubconf.py`` in a local directory (``source="local"``) or in a GitHub
    repository already unpacked in the cache; ``*args``/``**kwargs`` go to the entry point."""
    source = source.lower()
    with _hubconf(_repo_dir(repo_or_dir, source)) as m:
        return _entry(m, model)(*args, **kwargs)


_model_zoo._hub_loader = load_state_dict_from_url  # torch.utils.model_zoo.load_url (utils sits below hub)
