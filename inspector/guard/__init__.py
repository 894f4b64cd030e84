"""The guard: an httpx transport that refuses to let a stream end without its proof.

::

    import httpx, openai
    from inspector.guard import GuardTransport
    client = openai.OpenAI(http_client=httpx.Client(transport=GuardTransport()))

See ``docs/harness.md`` for anthropic, google-genai and async clients.
"""

from __future__ import annotations

from .errors import Evidence, NotProven, StreamNotProven
from .transport import AsyncGuardTransport, GuardTransport, guard_for, provider_for

__all__ = [
    "AsyncGuardTransport",
    "Evidence",
    "GuardTransport",
    "NotProven",
    "StreamNotProven",
    "guard_for",
    "provider_for",
]
