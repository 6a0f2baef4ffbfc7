from humanoid_stack.cli import main

raise SystemExit(main())
