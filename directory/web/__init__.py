"""The web layer: the blueprint's views, its forms and their CSRF protection."""
