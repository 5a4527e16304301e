"""``torch.func`` (functorch's transforms) on numtorch.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian``
(``_eager_transforms.py``), ``functional_call``, ``stack_module_state`` (``_functional_call.py``),
``replace_all_batch_norm_modules_`` (``_batch_norm.py``) and ``vmap`` (``_vmap.py``, when present).
Modules are handled by duck typing (``named_parameters``, ``_parameters``, ``_buffers``...): this
package sits below ``nn`` in numtorch's layers. How the transforms work and where vmap and forward-mode
AD plug in: ``_seams.py``; user guide: ``docs/func.md``.
"""
from __future__ import annotations

from ._eager_transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._functional_call import functional_call, stack_module_state
from ._batch_norm import replace_all_batch_norm_modules_

try:  # vmap is built in another branch (func/_vmap.py); this package works without it
    from ._vmap import vmap
except ModuleNotFoundError as _e:  # until that branch is merged
    if _e.name != __name__ + "._vmap":
        raise

    def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
        """Placeholder: numtorch's vmap (``func/_vmap.py``) is not in this build."""
        raise NotImplementedError("numtorch: torch.func.vmap is not available in this build")

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]
