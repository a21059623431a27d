"""perfdrill's Textual practice app (a thin front end over `engine`)."""
