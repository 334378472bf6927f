"""The site builder: Quarto documents to HTML, the website and its API reference."""
