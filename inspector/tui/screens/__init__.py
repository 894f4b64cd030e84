"""The TUI's screens: main (four panes), picker, help, details."""

from .details import DetailsScreen
from .help import HelpScreen
from .main import MainScreen
from .picker import PickerScreen

__all__ = ["DetailsScreen", "HelpScreen", "MainScreen", "PickerScreen"]
