"""agentframe's context shaper (`context: {use: shaper}`): any session, fitted into the
model's window without breaking its KV cache; `tools: [{use: load_message}]` reads a stub
whole."""

from __future__ import annotations

from .loadtool import LoadMessageOptions, LoadMessageTools
from .options import ShaperOptions
from .shaper import Shaper
from .tokens import AdapterEstimator, CharsEstimator, TiktokenEstimator, TokenEstimator, budget

__all__ = [
    "AdapterEstimator",
    "CharsEstimator",
    "LoadMessageOptions",
    "LoadMessageTools",
    "Shaper",
    "ShaperOptions",
    "TiktokenEstimator",
    "TokenEstimator",
    "budget",
]
