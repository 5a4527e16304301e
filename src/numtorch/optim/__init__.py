"""``numtorch.optim``: optimizers and learning-rate schedulers (mirrors ``torch.optim``).

Every optimizer updates its parameters in place with vectorized NumPy; their ``state_dict()`` has
PyTorch's layout, so optimizer checkpoints move between numtorch and PyTorch.
"""
from . import lr_scheduler, swa_utils
from ._adafactor import Adafactor
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]
