"""``python -m agent_tui.warm KEY``: the warm process (started by a launcher, not by users)."""

import sys

from agent_tui.warm import child, server

launch = server.main(sys.argv[1:])
if launch is not None:  # a forked child: it is now the launch
    child.run(launch)
