"""``numtorch.utils.checkpoint`` (mirrors ``torch.utils.checkpoint``): activation checkpointing.

Checkpointing trades compute for memory by recomputing a segment's activations during backward.
The values and gradients are the same as running the segment normally, so numtorch runs it
normally (it keeps the activations): results match PyTorch's, only the memory saving is absent.
As in PyTorch 2.x, omitting ``use_reentrant`` warns.
"""
from __future__ import annotations

import warnings

__all__ = ["checkpoint", "checkpoint_sequential"]


def _check_reentrant(use_reentrant):
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "use_reentrant=False is recommended.", UserWarning, stacklevel=3)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, preserve_rng_state=True, **kwargs):
    """``function(*args, **kwargs)``, with PyTorch's checkpoint signature (see the module docstring)."""
    _check_reentrant(use_reentrant)
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a Sequential or a list of modules) one after another on ``input``;
    ``segments`` must be a positive int."""
    _check_reentrant(use_reentrant)
    if not isinstance(segments, int) or segments < 1:
        raise ValueError(f"segments should be a positive integer, but got {segments}")
    mods = list(functions.children()) if hasattr(functions, "children") else list(functions)
    for m in mods:
        input = m(input)
    return input
