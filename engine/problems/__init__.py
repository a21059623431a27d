"""Questions: templates, variants, generation, answers, grading, mistakes and the bank's self-check."""
