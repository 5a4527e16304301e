"""Channel shuffle layer (mirrors ``torch/nn/modules/channelshuffle.py``), as in ShuffleNet."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Interleave ``groups`` groups of channels of an ``(N, C, *)`` input (``torch.nn.ChannelShuffle``):
    ``(N, groups, C/groups, *)`` is transposed to ``(N, C/groups, groups, *)``.

    RuntimeError (at forward) for inputs with fewer than 3 dims or ``C`` not divisible by ``groups``.
    """

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
