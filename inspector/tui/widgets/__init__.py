"""The panes of the main screen and the pieces they share."""

from .blocks import BlocksPane
from .events import EventsList, EventsPane
from .frames import FramesList, FramesPane
from .lines import LineList
from .search import SearchBar
from .state import StatePane, TransitionsList
from .status import StatusLine

__all__ = [
    "BlocksPane",
    "EventsList",
    "EventsPane",
    "FramesList",
    "FramesPane",
    "LineList",
    "SearchBar",
    "StatePane",
    "StatusLine",
    "TransitionsList",
]
