"""The templates hold a scenario's unit tests, one failing on purpose: pytest leaves them alone."""

collect_ignore_glob = ["*"]
