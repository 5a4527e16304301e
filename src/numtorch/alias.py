"""Run an unmodified PyTorch program on numtorch: make ``import torch`` load numtorch.

From the shell::

    python -m numtorch.alias train.py --some-flag ...    # runs train.py with torch -> numtorch

From Python (before the program imports torch)::

    import numtorch.alias
    numtorch.alias.install()
    import torch          # numtorch
    import torch.nn.functional as F   # numtorch.nn.functional

``install()`` adds a meta-path finder that answers every ``torch`` and ``torch.*`` import with the
numtorch module of the same dotted path (``torch.nn.modules.linear`` -> ``numtorch.nn.modules.linear``),
and ``import functorch`` with ``numtorch.functorch``.
A submodule numtorch lacks raises ModuleNotFoundError naming the numtorch path. ``uninstall()``
removes the finder and the aliases.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import runpy
import sys

__all__ = ["install", "uninstall", "main"]


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass  # already executed under its numtorch name


def _numtorch_name(fullname):
    """The numtorch module answering ``fullname`` (``torch.x`` -> ``numtorch.x``), or None."""
    if fullname in ("torch", "functorch") or fullname.startswith(("torch.", "functorch.")):
        # functorch (PyTorch's deprecated functorch package) is numtorch.functorch
        return "numtorch" + fullname[len("torch"):] if fullname.split(".")[0] == "torch" else "numtorch." + fullname
    return None


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        real = _numtorch_name(fullname)
        if real is None:
            return None
        if importlib.util.find_spec(real) is None:
            raise ModuleNotFoundError(f"No module named '{fullname}' (numtorch has no '{real}')", name=fullname)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


_finder = _TorchAliasFinder()


def install() -> None:
    """Make ``import torch`` (and every ``torch.*`` submodule) resolve to numtorch. Idempotent."""
    if "torch" in sys.modules and not getattr(sys.modules["torch"], "__name__", "").startswith("numtorch"):
        raise RuntimeError("the real torch is already imported in this process; install the alias first")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Remove the alias (numtorch itself stays imported)."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n in ("torch", "functorch") or n.startswith(("torch.", "functorch."))]:
        if getattr(sys.modules[name], "__name__", "").startswith("numtorch"):
            del sys.modules[name]


def main(argv=None) -> None:
    """``python -m numtorch.alias SCRIPT [ARGS...]``: run SCRIPT as ``__main__`` with torch -> numtorch."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    install()
    sys.argv = argv
    if argv[0] == "-m":
        sys.argv = argv[1:]
        # ``-m torch.distributed.run``: run numtorch's module (an alias has no code object to run)
        runpy.run_module(_numtorch_name(argv[1]) or argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
