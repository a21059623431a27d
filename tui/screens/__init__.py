"""One module per screen: start, question, feedback, summary and help."""
