"""``python -m optics`` runs the optics command."""

import sys

from .cli import main

sys.exit(main())
