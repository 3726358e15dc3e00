from krmfn.cli import main

raise SystemExit(main())
