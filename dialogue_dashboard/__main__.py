"""``python -m dialogue_dashboard``: the same as the ``dialogue-dashboard`` command."""
import sys

from .cli import main

sys.exit(main())
