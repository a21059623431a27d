"""perfdrill's headless core: specs, units, the symbolic performance model and its evaluation.

Nothing here imports Textual; the TUI and the command line are front ends over this package.
"""
