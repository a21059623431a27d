from perfdrill.cli import main

raise SystemExit(main())
