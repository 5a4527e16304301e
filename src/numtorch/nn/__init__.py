"""``numtorch.nn`` (mirrors ``torch.nn``): Parameter, Module, containers, layers, losses, init, functional."""
# ---- parameter and module system (owner: module system) ----
# ---- layers: from .modules import * (owner: layers) ----
