"""The TUI's screens: main (four panes), picker, help, details, export."""

from .details import DetailsScreen
from .export import ExportDialog
from .help import HelpScreen
from .main import MainScreen
from .picker import PickerScreen

__all__ = ["DetailsScreen", "ExportDialog", "HelpScreen", "MainScreen", "PickerScreen"]
