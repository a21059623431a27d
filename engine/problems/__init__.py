"""Questions: templates, variants, generation, answers, grading, mistakes and the bank's self-check.

The life cycle of a question: `load_bank` reads template folders, `generate` turns (template, seed)
into a `Problem`, `parse_numeric`/`parse_choices` read what a person typed, `grade` marks it, and
`check_paths` runs the same cycle over many seeds to test the templates themselves.
"""

from perfdrill.engine.problems.answers import (
    expected_form,
    letter,
    lettered,
    parse_choices,
    parse_numeric,
    typed_figures,
)
from perfdrill.engine.problems.bank import Bank, builtin_root, load_bank, load_folders, template_folders
from perfdrill.engine.problems.check import Finding, check_paths
from perfdrill.engine.problems.generation import Problem, ProblemPart, generate, show_number, variant_seed
from perfdrill.engine.problems.grading import Grade, PartGrade, grade, grade_part
from perfdrill.engine.problems.json_schema import question_schema
from perfdrill.engine.problems.leave_out import LeaveOut
from perfdrill.engine.problems.mistakes import CATALOGUE, Mistake
from perfdrill.engine.problems.roofline_view import OperatingPoint, Roof, RooflineView
from perfdrill.engine.problems.scaffolding import scaffold
from perfdrill.engine.problems.templates import DIFFICULTIES, FAMILIES, Template

__all__ = [
    "CATALOGUE",
    "DIFFICULTIES",
    "FAMILIES",
    "Bank",
    "Finding",
    "Grade",
    "LeaveOut",
    "Mistake",
    "OperatingPoint",
    "PartGrade",
    "Problem",
    "ProblemPart",
    "Roof",
    "RooflineView",
    "Template",
    "builtin_root",
    "check_paths",
    "expected_form",
    "generate",
    "grade",
    "grade_part",
    "letter",
    "lettered",
    "load_bank",
    "load_folders",
    "parse_choices",
    "parse_numeric",
    "question_schema",
    "scaffold",
    "show_number",
    "template_folders",
    "typed_figures",
    "variant_seed",
]
