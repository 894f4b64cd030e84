"""The panes of the main screen and the pieces they share."""

from .blocks import BlocksPane
from .events import EventsList, EventsPane
from .footer import KeysFooter
from .frames import FramesList, FramesPane
from .gaps import GapStrip
from .lines import LineList
from .search import GotoBar, SearchBar
from .state import StatePane, TransitionsList
from .status import StatusLine

__all__ = [
    "BlocksPane",
    "EventsList",
    "EventsPane",
    "FramesList",
    "FramesPane",
    "GapStrip",
    "GotoBar",
    "KeysFooter",
    "LineList",
    "SearchBar",
    "StatePane",
    "StatusLine",
    "TransitionsList",
]
