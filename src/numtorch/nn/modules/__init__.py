"""Module classes, one file per family as in ``torch/nn/modules/``."""
# ---- module system ----
from .module import Module
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
# ---- layers ----
