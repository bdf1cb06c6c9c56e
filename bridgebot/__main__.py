from bridgebot.cli import main

raise SystemExit(main())
