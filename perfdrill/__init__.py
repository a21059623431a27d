"""perfdrill: practise GPU and LLM performance interview questions in the terminal.

The one installed package. `perfdrill.engine` is the headless core, `perfdrill.tui` the Textual
practice app, `perfdrill.cli` the command line, `perfdrill.calc` the calculator as a
Python API (`perfdrill.calc.decode(model=..., chip=..., batch=..., context=...)`); `questions/`
and `specs/` are the built-in data.
"""


def __getattr__(name: str) -> object:
    if name == "calc":  # the Python API, imported on first use so the command line's start stays cold
        from importlib import import_module

        return import_module("perfdrill.calc")
    if name == "__version__":  # read lazily: importlib.metadata costs start-up time
        from importlib.metadata import version

        return version("perfdrill")
    raise AttributeError(f"module 'perfdrill' has no attribute {name!r}")
