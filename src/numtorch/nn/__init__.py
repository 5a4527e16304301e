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
