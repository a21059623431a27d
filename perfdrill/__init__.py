"""perfdrill's command line: the front end that ties the engine and the TUI together."""
