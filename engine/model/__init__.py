"""The performance model: units, chip and model specs, the formulas, their evaluation and worked steps."""
