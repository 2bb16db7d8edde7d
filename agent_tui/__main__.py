from agent_tui.cli import main

raise SystemExit(main())
