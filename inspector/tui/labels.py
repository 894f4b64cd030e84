"""What a frame is called in the Frames pane, and what a breakpoint on it matches."""

from __future__ import annotations

import orjson

from ..core.sse import Frame

__all__ = ["frame_label"]


def frame_label(frame: Frame) -> str:
    """A frame's event name; for data-only protocols the JSON ``type``.

    OpenAI Chat and Gemini send every frame as the default ``message``
    event, which says nothing; their data's ``type`` (when there is one),
    ``[DONE]`` or ``: comment`` does.
    """
    if frame.comment is not None:
        return ": comment"
    if frame.event != "message":
        return frame.event
    if frame.data.strip() == "[DONE]":
        return "[DONE]"
    if frame.data.lstrip()[:1] == "{" and '"type"' in frame.data:
        try:
            value = orjson.loads(frame.data)
        except orjson.JSONDecodeError:
            return "message"
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            return str(value["type"])
    return "message"
