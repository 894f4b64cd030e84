"""The adapter for a provider's frames in a framing other than SSE."""

from __future__ import annotations

from . import adapter_for
from .base import Adapter

__all__ = ["framed"]


def framed(provider: str, framing: str) -> Adapter:
    """``provider``'s adapter, wrapped when ``framing`` carries its events inside others.

    On the AWS event stream a provider other than ``bedrock-converse`` is a
    model behind Bedrock invoke: its events come unwrapped from ``chunk``
    events (see :mod:`.bedrock_invoke`).
    """
    adapter = adapter_for(provider)
    if framing == "aws-eventstream" and provider != "bedrock-converse":
        from .bedrock_invoke import INNER, BedrockInvokeAdapter

        if provider in INNER:
            return BedrockInvokeAdapter(adapter)
    return adapter
