"""``torch.signal``: signal-processing helpers; today its one subpackage, ``windows``."""
from . import windows

__all__ = ["windows"]
