"""linalg ops (under construction)."""
from __future__ import annotations
