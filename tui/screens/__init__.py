"""One module per screen: start, question, feedback, summary, progress, help, and the confirm dialog."""
