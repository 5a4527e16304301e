"""Module classes, one file per family as in ``torch/nn/modules/``."""
# ---- module system ----
# ---- layers ----
