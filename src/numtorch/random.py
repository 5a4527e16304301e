"""Random numbers (mirrors ``torch.random`` and the random creation functions).

A ``Generator`` is PyTorch's CPU generator: a Mersenne Twister seeded as PyTorch seeds it, whose
words become samples the way ATen's CPU kernels make them (``_generator.py``). So after
``manual_seed(s)``, ``rand``/``randn``/``randint``/``randperm``/``normal``/``bernoulli``/``multinomial``,
the in-place samplers, ``nn.init``, dropout and a shuffling ``DataLoader`` give the same values as
PyTorch on a CPU, and ``get_rng_state()`` is PyTorch's 5056-byte state. Exception: on Intel CPUs
PyTorch draws ``bernoulli_(p)`` with a float ``p`` from MKL.

The samplers themselves are in ``_ops/sampling.py``; this module holds the generators and re-exports them.
"""
from __future__ import annotations

import contextlib

import numpy as np

from . import _generator as _G
from ._device import check as _check_device
from ._ops.sampling import (bernoulli, multinomial, normal, poisson, rand, rand_like, randint, randint_like, randn,
                            randn_like, randperm)
from ._tensor import Tensor, _make

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "default_generator",
           "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like",
           "randint_like", "poisson"]


class Generator:
    """A random-number generator (``torch.Generator``): ``manual_seed``, ``seed``, ``initial_seed``,
    ``get_state``/``set_state`` (a uint8 tensor of 5056 bytes, PyTorch's layout)."""

    def __init__(self, device="cpu"):
        _check_device(device)
        self.device = "cpu"
        self._engine = _G.Engine(_G.DEFAULT_SEED)

    def manual_seed(self, seed) -> "Generator":
        """Reseed with ``seed`` (an int in ``[-2**63, 2**64)``; negatives wrap modulo 2**64)."""
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        self._engine.reseed(seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        s = _G.os_seed()
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._engine.seed

    def get_state(self) -> Tensor:
        return _make(self._engine.get_state())

    def set_state(self, new_state: Tensor) -> "Generator":
        """Restore a state from ``get_state`` (numtorch's or PyTorch's). RuntimeError for a wrong size
        and TypeError for a non-uint8 tensor."""
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        self._engine.set_state(new_state._data.reshape(-1))
        return self


    def clone_state(self) -> "Generator":
        """A new Generator at the same point of the same stream (``Generator.clone_state``)."""
        g = Generator()
        g._engine.set_state(self._engine.get_state())
        return g


default_generator = Generator()
default_generator._engine = _G.default_engine  # seeded from the OS; what the samplers use for generator=None


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Restore the default generator's state on exit, so random calls inside leave no trace outside
    (``torch.random.fork_rng``). numtorch has only the CPU generator: like a CPU build of PyTorch, it raises
    AssertionError when ``devices`` lists any."""
    if not enabled:
        yield
        return
    if devices:  # PyTorch forks each listed CUDA device's generator, which a CPU build can't
        raise AssertionError("Torch not compiled with CUDA enabled")
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)


def manual_seed(seed) -> Generator:
    """Seed the default generator (``torch.manual_seed``); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (``torch.get_rng_state``): uint8 tensor of 5056 bytes."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)
