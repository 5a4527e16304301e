"""``numtorch.nn`` (mirrors ``torch.nn``): Parameter, Module, containers, layers, losses, init, functional."""
# ---- parameter and module system (owner: module system) ----
from . import modules
from .modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .modules.module import Module
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
# ---- layers: from .modules import * (owner: layers) ----
from .modules import *  # noqa: E402,F401,F403
from . import functional, init, utils  # noqa: E402
# ---- data-parallel wrappers (owner: compat) ----
from . import parallel  # noqa: E402
from .parallel import DataParallel  # noqa: E402,F401


def factory_kwargs(kwargs):
    """``torch.nn.factory_kwargs``: the ``device``/``dtype``/``memory_format`` entries of ``kwargs`` (merged with
    its ``factory_kwargs`` dict) for factory functions; TypeError for other keys or a key given twice."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    if not kwargs.keys() <= simple | {"factory_kwargs"}:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - simple - {'factory_kwargs'}}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for k in simple & kwargs.keys():
        if k in out:
            raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
        out[k] = kwargs[k]
    return out
