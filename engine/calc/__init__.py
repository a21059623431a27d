"""`perfdrill calc`'s subcommands below both of its front ends: the table that declares them
(table.py and the modules it gathers), the strict readers of typed values, and prepare(), which turns
a request's options into formula inputs. The command line (perfdrill/cli/calc.py) and the Python API
(perfdrill.calc) sit above this package; it imports nothing at package level so that each front end
loads only the modules it uses.
"""
