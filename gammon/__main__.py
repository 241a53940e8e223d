"""``python -m gammon``: the ``gammon`` command."""

import sys

from gammon.app.cli import main

sys.exit(main())
