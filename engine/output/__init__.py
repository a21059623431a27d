"""Problem sets as Markdown, JSON, HTML and PDF, with plots and spec tables."""
